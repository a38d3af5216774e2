#include "serve/metrics/histogram_delta.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace ironbench::serve {
namespace {

std::optional<double> bound_of(const std::string& text) {
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || std::isnan(value)) return std::nullopt;
  return value;
}

// The buckets both readings have (same bounds), combined by `f`.
template <class F>
void combine_buckets(const histogram_reading& a, const histogram_reading& b, histogram_reading& out, F f) {
  if (a.bounds != b.bounds) return;
  out.bounds = a.bounds;
  out.cumulative.resize(a.bounds.size());
  for (std::size_t i = 0; i < a.bounds.size(); ++i) out.cumulative[i] = f(a.cumulative[i], b.cumulative[i]);
}

}  // namespace

std::optional<histogram_reading> read_histogram(const std::vector<prometheus_sample>& samples,
                                                const std::string& name) {
  const auto sum_name = name + "_sum", count_name = name + "_count", bucket_name = name + "_bucket";
  histogram_reading h;
  bool have_count = false;
  std::map<double, std::pair<double, std::size_t>> buckets;  // bound -> (cumulative, label sets)
  std::size_t label_sets = 0;
  for (const auto& s : samples) {
    if (!std::isfinite(s.value)) continue;
    if (s.name == count_name) {
      h.count += s.value;
      have_count = true;
      ++label_sets;
    } else if (s.name == sum_name) {
      h.sum += s.value;
    } else if (s.name == bucket_name) {
      const auto* le = s.label("le");
      if (le == nullptr) continue;
      const auto bound = bound_of(*le);
      if (!bound || std::isinf(*bound)) continue;
      auto& b = buckets[*bound];
      b.first += s.value;
      ++b.second;
    }
  }
  if (!have_count) return std::nullopt;
  for (const auto& [bound, b] : buckets) {
    if (b.second != label_sets) continue;  // not every label set has it: the sum would be wrong
    h.bounds.push_back(bound);
    h.cumulative.push_back(b.first);
  }
  return h;
}

histogram_reading histogram_increase(const histogram_reading& before, const histogram_reading& after) {
  histogram_reading out;
  const bool restarted = after.count < before.count;
  out.count = restarted ? after.count : after.count - before.count;
  out.sum = restarted ? after.sum : counter_increase(before.sum, after.sum);
  if (restarted) {
    out.bounds = after.bounds;
    out.cumulative = after.cumulative;
  } else {
    combine_buckets(before, after, out, [](double b, double a) { return counter_increase(b, a); });
  }
  return out;
}

histogram_reading histogram_add(const histogram_reading& a, const histogram_reading& b) {
  histogram_reading out;
  out.count = a.count + b.count;
  out.sum = a.sum + b.sum;
  combine_buckets(a, b, out, [](double x, double y) { return x + y; });
  return out;
}

std::optional<double> histogram_mean(const histogram_reading& h) {
  if (!(h.count > 0)) return std::nullopt;
  return h.sum / h.count;
}

std::optional<double> histogram_quantile(const histogram_reading& h, double q) {
  if (!(h.count > 0) || h.bounds.empty() || !(q > 0 && q < 1)) return std::nullopt;
  const double rank = q * h.count;
  for (std::size_t i = 0; i < h.bounds.size(); ++i) {
    if (h.cumulative[i] < rank) continue;
    const double lower = i == 0 ? 0.0 : h.bounds[i - 1];
    const double below = i == 0 ? 0.0 : h.cumulative[i - 1];
    const double in_bucket = h.cumulative[i] - below;
    if (!(in_bucket > 0)) return h.bounds[i];
    return lower + (h.bounds[i] - lower) * (rank - below) / in_bucket;
  }
  return h.bounds.back();  // in the +Inf bucket
}

}  // namespace ironbench::serve
