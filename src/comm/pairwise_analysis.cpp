#include "comm/pairwise_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ironbench::comm {
namespace {

bool link_measured(double v) { return std::isfinite(v) && v > 0; }

double median_link_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string participant_label(const std::vector<std::string>& labels, int i) {
  return i >= 0 && static_cast<std::size_t>(i) < labels.size() ? labels[static_cast<std::size_t>(i)]
                                                               : fmt::format("#{}", i);
}

std::string link_label(const low_link& l, const std::vector<std::string>& labels) {
  return fmt::format("{} <-> {}", participant_label(labels, l.a), participant_label(labels, l.b));
}

json low_link_json(const low_link& l, const std::vector<std::string>& labels) {
  return {{"a", participant_label(labels, l.a)},
          {"b", participant_label(labels, l.b)},
          {"gbs", l.value},
          {"ratio", l.ratio}};
}

}  // namespace

int low_links_naming_a_node(int links) {
  if (links < 2) return 0;  // never named
  return std::max(2, (3 * links + 3) / 4);
}

pair_findings analyse_pairs(const std::vector<std::vector<double>>& matrix, double factor) {
  if (!(factor > 0 && factor <= 1)) throw std::invalid_argument("the outlier factor must be in (0, 1]");
  const int n = static_cast<int>(matrix.size());
  for (const auto& row : matrix) {
    if (static_cast<int>(row.size()) != n) throw std::invalid_argument("the pairwise matrix must be square");
  }
  pair_findings f;
  f.factor = factor;
  std::vector<low_link> links;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double ab = matrix[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      const double ba = matrix[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)];
      if (!link_measured(ab) && !link_measured(ba)) continue;
      const double value = link_measured(ab) && link_measured(ba) ? std::min(ab, ba) : link_measured(ab) ? ab : ba;
      links.push_back({a, b, value, 0});
    }
  }
  f.links = static_cast<int>(links.size());
  std::vector<double> values;
  for (const auto& l : links) values.push_back(l.value);
  f.median = median_link_of(values);
  f.threshold = factor * f.median;
  if (f.links < 3) {
    f.reason = f.links == 0 ? "no link was measured"
                            : fmt::format("{} link{}: too few to compare with their median (3 nodes or more needed)",
                                          f.links, f.links == 1 ? "" : "s");
    return f;
  }
  f.judged = true;
  std::vector<int> low_count(static_cast<std::size_t>(n), 0), link_count(static_cast<std::size_t>(n), 0);
  for (auto& l : links) {
    l.ratio = l.value / f.median;
    ++link_count[static_cast<std::size_t>(l.a)];
    ++link_count[static_cast<std::size_t>(l.b)];
    if (l.value >= f.threshold) continue;
    f.low.push_back(l);
    ++low_count[static_cast<std::size_t>(l.a)];
    ++low_count[static_cast<std::size_t>(l.b)];
  }
  std::sort(f.low.begin(), f.low.end(), [](const low_link& x, const low_link& y) { return x.value < y.value; });
  std::vector<bool> at_fault(static_cast<std::size_t>(n), false);
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const int needed = low_links_naming_a_node(link_count[k]);
    if (needed > 0 && low_count[k] >= needed) {
      at_fault[k] = true;
      f.nodes.push_back({i, low_count[k], link_count[k]});
    }
  }
  for (const auto& l : f.low) {
    if (!at_fault[static_cast<std::size_t>(l.a)] && !at_fault[static_cast<std::size_t>(l.b)]) {
      f.bad_links.push_back(l);
    }
  }
  return f;
}

std::string describe(const pair_findings& f, const std::vector<std::string>& labels) {
  if (!f.judged) return f.reason;
  if (f.low.empty()) {
    return fmt::format("no link below {:g} x the median {:.3g} GB/s ({} links)", f.factor, f.median, f.links);
  }
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  for (const auto& node : f.nodes) {
    add(fmt::format("node {} ({} of its {} links below {:g} x the median {:.3g} GB/s)",
                    participant_label(labels, node.node), node.low_links, node.links, f.factor, f.median));
  }
  for (const auto& l : f.bad_links) {
    add(fmt::format("link {} ({:.3g} GB/s, {:.2f} x the median {:.3g} GB/s)", link_label(l, labels), l.value, l.ratio,
                    f.median));
  }
  return text;
}

json to_json(const pair_findings& f, const std::vector<std::string>& labels) {
  json low = json::array(), nodes = json::array(), bad = json::array();
  for (const auto& l : f.low) low.push_back(low_link_json(l, labels));
  for (const auto& l : f.bad_links) bad.push_back(low_link_json(l, labels));
  for (const auto& node : f.nodes) {
    nodes.push_back(
        {{"node", participant_label(labels, node.node)}, {"low_links", node.low_links}, {"links", node.links}});
  }
  return {{"factor", f.factor},     {"links", f.links},
          {"median_gbs", f.median}, {"threshold_gbs", f.threshold},
          {"judged", f.judged},     {"reason", f.reason},
          {"low_links", low},       {"bad_nodes", nodes},
          {"bad_links", bad},       {"summary", describe(f, labels)}};
}

}  // namespace ironbench::comm
