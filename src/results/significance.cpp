#include "results/significance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace ironbench::results {
namespace {

// Number of ways to reach each U with m values of one sample and n of the other
// (the recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u)).
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
  // table[j][u] for the current m, j = 0..n
  std::vector<std::vector<double>> previous(n + 1, std::vector<double>(1, 1.0));
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> current(n + 1);
    current[0] = std::vector<double>(1, 1.0);
    for (std::size_t j = 1; j <= n; ++j) {
      current[j].assign(i * j + 1, 0.0);
      for (std::size_t u = 0; u < current[j].size(); ++u) {
        if (u >= j && u - j < previous[j].size()) current[j][u] += previous[j][u - j];
        if (u < current[j - 1].size()) current[j][u] += current[j - 1][u];
      }
    }
    previous = std::move(current);
  }
  return previous[n];
}

}  // namespace

u_test mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  u_test result;
  const std::size_t na = a.size(), nb = b.size();
  if (na == 0 || nb == 0) return result;
  struct value {
    double x;
    bool first;
  };
  std::vector<value> all;
  all.reserve(na + nb);
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const value& l, const value& r) { return l.x < r.x; });
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].x == all[i].x) ++j;
    const double average_rank = (static_cast<double>(i + j) + 1.0) / 2.0;  // ranks are 1-based
    const double t = static_cast<double>(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].first) rank_sum_a += average_rank;
    }
    i = j;
  }
  const double n1 = static_cast<double>(na), n2 = static_cast<double>(nb);
  result.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean_u = n1 * n2 / 2;
  if (!ties && na <= 20 && nb <= 20) {
    const auto counts = u_distribution(na, nb);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const double low = std::min(result.u, n1 * n2 - result.u);  // the distribution is symmetric
    double tail = 0;
    for (std::size_t u = 0; u <= static_cast<std::size_t>(low); ++u) tail += counts[u];
    result.p_value = std::min(1.0, 2 * tail / total);
    result.exact = true;
    return result;
  }
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference
  const double z = std::max(0.0, std::abs(result.u - mean_u) - 0.5) / std::sqrt(variance);
  result.p_value = std::erfc(z / std::sqrt(2.0));
  return result;
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile needs 0 < p < 1");
  // Acklam's rational approximation, refined by one Newton step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

ratio_interval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double confidence,
                                      int resamples) {
  if (a.empty() || b.empty()) throw std::invalid_argument("bootstrap_median_ratio needs two non-empty samples");
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  auto median = [](std::vector<double>& v) {
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2 == 1) return *mid;
    return (*mid + *std::max_element(v.begin(), mid)) / 2;
  };
  ratio_interval result;
  result.ratio = median(x) / median(y);
  std::mt19937_64 random(0x1e0b5eedULL);
  std::vector<double> ratios, rx(a.size()), ry(b.size());
  ratios.reserve(static_cast<std::size_t>(resamples));
  std::uniform_int_distribution<std::size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  for (int r = 0; r < resamples; ++r) {
    for (auto& v : rx) v = a[pick_a(random)];
    for (auto& v : ry) v = b[pick_b(random)];
    ratios.push_back(median(rx) / median(ry));
  }
  std::sort(ratios.begin(), ratios.end());
  auto quantile = [&](double q) {
    const double position = q * static_cast<double>(ratios.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const auto above = std::min(below + 1, ratios.size() - 1);
    return ratios[below] + (position - static_cast<double>(below)) * (ratios[above] - ratios[below]);
  };
  result.low = quantile((1 - confidence) / 2);
  result.high = quantile((1 + confidence) / 2);
  return result;
}

}  // namespace ironbench::results
