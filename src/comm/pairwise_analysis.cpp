#include "comm/pairwise_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/units.hpp"

namespace ironbench::comm {
namespace {

constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();

bool link_measured(double v) { return std::isfinite(v) && v > 0; }

// The links of one one-way matrix: the slower direction, or the one measured.
std::vector<link_value> link_values(const std::vector<std::vector<double>>& m) {
  std::vector<link_value> links;
  const int n = static_cast<int>(m.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double ab = m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      const double ba = m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)];
      if (!link_measured(ab) && !link_measured(ba)) continue;
      links.push_back({a, b, link_measured(ab) && link_measured(ba) ? std::min(ab, ba) : link_measured(ab) ? ab : ba});
    }
  }
  return links;
}

// The value of link a-b in `m`, NaN when not measured.
double value_in(const std::vector<std::vector<double>>& m, int a, int b) {
  const auto n = static_cast<int>(m.size());
  if (a < 0 || b < 0 || a >= n || b >= n) return not_measured;
  const double ab = m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
  const double ba = m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)];
  if (!link_measured(ab) && !link_measured(ba)) return not_measured;
  return link_measured(ab) && link_measured(ba) ? std::min(ab, ba) : link_measured(ab) ? ab : ba;
}

std::string participant_label(const std::vector<std::string>& labels, int i) {
  return i >= 0 && static_cast<std::size_t>(i) < labels.size() ? labels[static_cast<std::size_t>(i)]
                                                               : fmt::format("#{}", i);
}

std::string link_label(const low_link& l, const std::vector<std::string>& labels) {
  return fmt::format("{} <-> {}", participant_label(labels, l.a), participant_label(labels, l.b));
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json low_link_json(const low_link& l, const std::vector<std::string>& labels) {
  return {{"a", participant_label(labels, l.a)},
          {"b", participant_label(labels, l.b)},
          {"gbs", l.value},
          {"ratio", l.ratio},
          {"bytes", l.bytes},
          {"confirm_gbs", number_or_null(l.confirm_value)},
          {"confirm_ratio", number_or_null(l.confirm_ratio)},
          {"confirmed", l.confirmed},
          {"undecided", l.undecided},
          {"neighbour", l.neighbour}};
}

// The nodes and links named from f.low.
void name_low_links(pair_findings& f) {
  f.nodes.clear();
  f.bad_links.clear();
  const auto n = f.node_links.size();
  std::vector<int> low_count(n, 0);
  for (const auto& l : f.low) {
    ++low_count[static_cast<std::size_t>(l.a)];
    ++low_count[static_cast<std::size_t>(l.b)];
  }
  std::vector<bool> at_fault(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    const int needed = low_links_naming_a_node(f.node_links[k]);
    if (needed > 0 && low_count[k] >= needed) {
      at_fault[k] = true;
      f.nodes.push_back({static_cast<int>(k), low_count[k], f.node_links[k]});
    }
  }
  for (const auto& l : f.low) {
    if (!at_fault[static_cast<std::size_t>(l.a)] && !at_fault[static_cast<std::size_t>(l.b)]) f.bad_links.push_back(l);
  }
}

std::string ratio_text(const low_link& l, bool confirmation) {
  if (!confirmation) return fmt::format("{:.2f} x", l.ratio);
  if (!std::isfinite(l.confirm_ratio)) return fmt::format("{:.2f} x, not measured again", l.ratio);
  return fmt::format("{:.2f} x, {:.2f} x measured again", l.ratio, l.confirm_ratio);
}

}  // namespace

int low_links_naming_a_node(int links) {
  if (links < 2) return 0;  // never named
  return std::max(2, (links + 1) / 2);
}

double reference_link(const std::vector<link_value>& links) {
  if (links.empty()) return 0;
  std::vector<double> values;
  for (const auto& l : links) values.push_back(l.value);
  std::sort(values.begin(), values.end());
  // The upper quartile, interpolated between the two values around it.
  const double at = 0.75 * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  if (below + 1 >= values.size()) return values.back();
  return values[below] + (values[below + 1] - values[below]) * (at - static_cast<double>(below));
}

pair_findings analyse_pairs(const std::vector<size_matrix>& sizes, double factor) {
  if (!(factor > 0 && factor <= 1)) throw std::invalid_argument("the outlier factor must be in (0, 1]");
  if (sizes.empty()) throw std::invalid_argument("no pairwise matrix to judge");
  const int n = static_cast<int>(sizes.front().one_way.size());
  for (const auto& s : sizes) {
    if (static_cast<int>(s.one_way.size()) != n) {
      throw std::invalid_argument("the pairwise matrices must have one participant count");
    }
    for (const auto& row : s.one_way) {
      if (static_cast<int>(row.size()) != n) throw std::invalid_argument("the pairwise matrix must be square");
    }
  }
  std::vector<const size_matrix*> ordered;
  for (const auto& s : sizes) ordered.push_back(&s);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const size_matrix* x, const size_matrix* y) { return x->bytes < y->bytes; });

  pair_findings f;
  f.factor = factor;
  f.node_links.assign(static_cast<std::size_t>(n), 0);
  // (a, b) -> the link's value at each judged size.
  std::map<std::pair<int, int>, std::vector<double>> values;
  for (std::size_t k = 0; k < ordered.size(); ++k) {
    const auto links = link_values(ordered[k]->one_way);
    f.judged_bytes.push_back(ordered[k]->bytes);
    f.references.push_back(reference_link(links));
    for (const auto& l : links) {
      auto& v = values[{l.a, l.b}];
      v.resize(ordered.size(), not_measured);
      v[k] = l.value;
    }
  }
  f.links = static_cast<int>(values.size());
  for (const auto& [link, v] : values) {
    ++f.node_links[static_cast<std::size_t>(link.first)];
    ++f.node_links[static_cast<std::size_t>(link.second)];
  }
  f.median = f.references.back();
  f.threshold = factor * f.median;
  if (f.links < 3) {
    f.reason = f.links == 0 ? "no link was measured"
                            : fmt::format("{} link{}: too few to compare with the others (3 nodes or more needed)",
                                          f.links, f.links == 1 ? "" : "s");
    return f;
  }
  f.judged = true;
  // Every link's lowest ratio over the sizes.
  std::vector<low_link> all;
  std::vector<std::vector<double>> node_ratios(static_cast<std::size_t>(n));
  for (const auto& [link, v] : values) {
    low_link l;
    l.a = link.first;
    l.b = link.second;
    l.ratio = -1;
    l.confirm_value = l.confirm_ratio = not_measured;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (!link_measured(v[k]) || !(f.references[k] > 0)) continue;
      const double ratio = v[k] / f.references[k];
      if (l.ratio < 0 || ratio < l.ratio) {
        l.ratio = ratio;
        l.value = v[k];
        l.bytes = f.judged_bytes[k];
      }
    }
    if (l.ratio < 0) continue;
    node_ratios[static_cast<std::size_t>(l.a)].push_back(l.ratio);
    node_ratios[static_cast<std::size_t>(l.b)].push_back(l.ratio);
    all.push_back(l);
  }
  f.judged_links = all;
  // Suspects: the links below the suspect bound (a slow link can come out well above the factor
  // in a loaded sweep; measuring again guards against false blame), and every link of a node
  // with enough of them to be named (so that a slow node's link measured a little high is
  // measured again with the others).
  const double suspect_bound = pair_sure_high * factor;
  for (std::size_t i = 0; i < node_ratios.size(); ++i) {
    const auto below =
        std::count_if(node_ratios[i].begin(), node_ratios[i].end(), [&](double r) { return r < suspect_bound; });
    const int needed = low_links_naming_a_node(f.node_links[i]);
    if (needed > 0 && below >= needed) f.suspect_nodes.push_back(static_cast<int>(i));
  }
  const auto of_suspect_node = [&](const low_link& l) {
    return std::any_of(f.suspect_nodes.begin(), f.suspect_nodes.end(), [&](int i) { return i == l.a || i == l.b; });
  };
  for (const auto& l : all) {
    if (l.ratio < suspect_bound || of_suspect_node(l)) f.suspects.push_back(l);
  }
  std::sort(f.suspects.begin(), f.suspects.end(),
            [](const low_link& x, const low_link& y) { return x.ratio < y.ratio; });
  for (const auto& l : f.suspects) {
    if (l.ratio < factor) f.low.push_back(l);
  }
  name_low_links(f);
  return f;
}

pair_findings analyse_pairs(const std::vector<std::vector<double>>& matrix, double factor) {
  return analyse_pairs(std::vector<size_matrix>{{0, matrix}}, factor);
}

namespace {

// control_links of the suspects `measured` (every other suspect is no control either).
std::vector<std::pair<int, int>> controls_of(const pair_findings& f, const std::vector<low_link>& measured) {
  constexpr std::size_t max_control_links = 6;
  const int n = static_cast<int>(f.node_links.size());
  std::set<std::pair<int, int>> taken;  // the suspects, but for those cleared (healthy controls)
  for (const auto& l : f.suspects) {
    const bool cleared = std::isfinite(l.confirm_ratio) && !l.confirmed && !l.undecided;
    if (!cleared) taken.insert({l.a, l.b});
  }
  std::vector<std::pair<int, int>> controls;
  for (const auto& l : measured) {
    for (const int end : {l.a, l.b}) {
      if (controls.size() >= max_control_links) return controls;
      // From the next participant round (not from the first), so that the controls spread over
      // the peers rather than all sharing participant 0.
      for (int step = 1; step < n; ++step) {
        const int other = (end + step) % n;
        const std::pair<int, int> link{std::min(end, other), std::max(end, other)};
        if (!taken.insert(link).second) continue;
        controls.push_back(link);
        break;
      }
    }
  }
  return controls;
}

}  // namespace

std::vector<std::pair<int, int>> control_links(const pair_findings& f) { return controls_of(f, f.suspects); }

std::vector<std::pair<int, int>> links_to_measure_again(const pair_findings& f, bool undecided_only) {
  std::vector<low_link> measured;
  for (const auto& l : f.suspects) {
    if (!undecided_only || l.undecided) measured.push_back(l);
  }
  auto controls = controls_of(f, measured);
  std::vector<std::pair<int, int>> out;
  for (const auto& l : measured) {
    out.emplace_back(l.a, l.b);
    for (auto c = controls.begin(); c != controls.end();) {
      if (c->first != l.a && c->second != l.a && c->first != l.b && c->second != l.b) {
        ++c;
        continue;
      }
      out.push_back(*c);
      c = controls.erase(c);
    }
  }
  return out;
}

bool any_undecided(const pair_findings& f) {
  return std::any_of(f.suspects.begin(), f.suspects.end(), [](const low_link& l) { return l.undecided; });
}

namespace {

// A suspect's decision from its highest ratio measured again (NaN: not measured).
void decide(low_link& s, const std::vector<const size_matrix*>& at_size, const std::vector<double>& references,
            double factor, bool last) {
  s.confirm_value = s.confirm_ratio = not_measured;
  s.confirmed = s.undecided = false;
  double best = -1;
  for (std::size_t k = 0; k < at_size.size(); ++k) {
    if (at_size[k] == nullptr || !(references[k] > 0)) continue;
    const double value = value_in(at_size[k]->one_way, s.a, s.b);
    if (!link_measured(value)) continue;
    const double ratio = value / references[k];
    if (ratio > best) {
      best = ratio;
      s.confirm_value = value;
      s.confirm_ratio = ratio;
    }
  }
  if (best < 0) {
    s.undecided = !last;  // not measured: measured again while rounds are left
  } else if (best < pair_sure_low * factor) {
    s.confirmed = true;
  } else if (best < pair_sure_high * factor) {
    s.undecided = !last;  // still between the margins after the last measurement: not named
  }
}

// The judged links at an end of `low` that are no suspect yet, as neighbours.
std::vector<low_link> neighbours_of(const pair_findings& f, const low_link& low) {
  std::vector<low_link> out;
  for (const auto& l : f.judged_links) {
    if (l.a != low.a && l.b != low.a && l.a != low.b && l.b != low.b) continue;
    const bool known =
        std::any_of(f.suspects.begin(), f.suspects.end(), [&](const low_link& s) { return s.a == l.a && s.b == l.b; });
    if (known) continue;
    low_link n = l;
    n.neighbour = true;
    n.confirm_value = n.confirm_ratio = not_measured;
    out.push_back(n);
  }
  return out;
}

}  // namespace

pair_findings confirm_suspects(pair_findings f, const std::vector<size_matrix>& again, bool last) {
  f.confirmation = true;
  f.low.clear();
  // Per judged size, the upper quartile of the links measured again (suspects and controls).
  f.confirm_references = f.references;
  std::vector<const size_matrix*> at_size(f.judged_bytes.size(), nullptr);
  for (const auto& m : again) {
    const auto it = std::find(f.judged_bytes.begin(), f.judged_bytes.end(), m.bytes);
    if (it == f.judged_bytes.end()) continue;
    const auto k = static_cast<std::size_t>(it - f.judged_bytes.begin());
    at_size[k] = &m;
    const auto measured = link_values(m.one_way);
    if (measured.size() >= 2) f.confirm_references[k] = reference_link(measured);
  }
  // A control that came out low (below the clearing margin) joins the suspects: with a slow
  // node, the controls at its end are its own links.
  for (const auto& l : f.judged_links) {
    const bool known =
        std::any_of(f.suspects.begin(), f.suspects.end(), [&](const low_link& s) { return s.a == l.a && s.b == l.b; });
    if (known) continue;
    low_link control = l;
    control.neighbour = true;
    decide(control, at_size, f.confirm_references, f.factor, last);
    const bool measured = std::isfinite(control.confirm_ratio);
    if (measured && (control.confirmed || control.undecided)) f.suspects.push_back(control);
  }
  // Decided in an earlier round: it stands.
  const auto decide_open = [&] {
    for (auto& s : f.suspects) {
      if (!std::isfinite(s.confirm_ratio) || s.undecided) decide(s, at_size, f.confirm_references, f.factor, last);
    }
    f.low.clear();
    for (const auto& s : f.suspects) {
      if (s.confirmed) f.low.push_back(s);
    }
    name_low_links(f);
  };
  decide_open();
  // A suspect of the sweep found low that no node at fault explains: the other links at its
  // ends join the suspects (decided in turn where measured), to tell its node from its link.
  const auto at_fault = [&](int node) {
    return std::any_of(f.nodes.begin(), f.nodes.end(), [&](const low_node& n) { return n.node == node; });
  };
  const auto sweep_suspects = f.suspects.size();
  for (std::size_t i = 0; i < sweep_suspects; ++i) {
    const auto s = f.suspects[i];
    if (!s.confirmed || s.neighbour || at_fault(s.a) || at_fault(s.b)) continue;
    for (auto& n : neighbours_of(f, s)) f.suspects.push_back(n);
  }
  if (f.suspects.size() > sweep_suspects) decide_open();
  return f;
}

std::string describe(const pair_findings& f, const std::vector<std::string>& labels) {
  if (!f.judged) return f.reason;
  const auto again = f.confirmation ? ", slow again when measured again" : "";
  if (f.low.empty()) {
    std::string text =
        fmt::format("no link below {:g} x the reference {:.3g} GB/s ({} links)", f.factor, f.median, f.links);
    std::string cleared;
    for (const auto& s : f.suspects) {
      if (s.neighbour) continue;  // the sweep's suspects only
      cleared += fmt::format("{}{} ({})", cleared.empty() ? "" : ", ", link_label(s, labels), ratio_text(s, true));
    }
    if (!cleared.empty()) text += fmt::format("; not slow again when measured again: {}", cleared);
    return text;
  }
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  for (const auto& node : f.nodes) {
    add(fmt::format("node {} ({} of its {} links below {:g} x the reference {:.3g} GB/s{})",
                    participant_label(labels, node.node), node.low_links, node.links, f.factor, f.median, again));
  }
  for (const auto& l : f.bad_links) {
    const auto at = l.bytes > 0 ? " at " + format_bytes(static_cast<double>(l.bytes)) : std::string();
    add(fmt::format("link {} ({:.3g} GB/s{}, {} the reference {:.3g} GB/s)", link_label(l, labels), l.value, at,
                    ratio_text(l, f.confirmation), f.median));
  }
  return text;
}

json to_json(const pair_findings& f, const std::vector<std::string>& labels) {
  json suspects = json::array(), low = json::array(), nodes = json::array(), bad = json::array();
  json suspect_nodes = json::array();
  for (const int i : f.suspect_nodes) suspect_nodes.push_back(participant_label(labels, i));
  for (const auto& l : f.suspects) suspects.push_back(low_link_json(l, labels));
  for (const auto& l : f.low) low.push_back(low_link_json(l, labels));
  for (const auto& l : f.bad_links) bad.push_back(low_link_json(l, labels));
  for (const auto& node : f.nodes) {
    nodes.push_back(
        {{"node", participant_label(labels, node.node)}, {"low_links", node.low_links}, {"links", node.links}});
  }
  return {{"factor", f.factor},
          {"links", f.links},
          {"judged_bytes", f.judged_bytes},
          {"references_gbs", f.references},
          {"median_gbs", f.median},
          {"threshold_gbs", f.threshold},
          {"judged", f.judged},
          {"reason", f.reason},
          {"confirmation", f.confirmation},
          {"confirm_references_gbs", f.confirm_references},
          {"confirm_rounds", f.confirm_rounds},
          {"suspect_nodes", suspect_nodes},
          {"suspects", suspects},
          {"low_links", low},
          {"bad_nodes", nodes},
          {"bad_links", bad},
          {"summary", describe(f, labels)}};
}

}  // namespace ironbench::comm
