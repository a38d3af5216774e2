#include "serve/point/point_timeline.hpp"

#include <cmath>
#include <limits>

namespace ironbench::serve {

std::vector<double> client_output_rate(const std::vector<request_record>& records, double duration_s, double window_s) {
  if (!(window_s > 0) || !(duration_s > 0)) return {};
  const auto windows = static_cast<std::size_t>(std::ceil(duration_s / window_s));
  std::vector<double> tokens(windows, 0);
  const auto add = [&](double t, double count) {
    if (!(t >= 0)) return;
    const auto i = std::min(windows - 1, static_cast<std::size_t>(t / window_s));
    tokens[i] += count;
  };
  for (const auto& r : records) {
    if (!r.success || r.output_len <= 0) continue;
    const double per_event = static_cast<double>(r.output_len) / static_cast<double>(r.itl_s.size() + 1);
    double t = r.sent_s + r.ttft_s;
    add(t, per_event);
    for (const double gap : r.itl_s) {
      t += gap;
      add(t, per_event);
    }
  }
  for (std::size_t i = 0; i < windows; ++i) {
    // The last window may be shorter than the others.
    const double length = std::min(window_s, duration_s - static_cast<double>(i) * window_s);
    tokens[i] = length > 0 ? tokens[i] / length : 0;
  }
  return tokens;
}

std::map<std::string, std::vector<double>> point_timeline(const std::vector<request_record>& records, double duration_s,
                                                          double window_s, const json& server_summary) {
  std::map<std::string, std::vector<double>> series;
  auto& rate = series["client_output_tokens_per_s"] = client_output_rate(records, duration_s, window_s);
  auto& ends = series["client_t_s"];
  for (std::size_t i = 0; i < rate.size(); ++i)
    ends.push_back(std::min(duration_s, static_cast<double>(i + 1) * window_s));
  if (!server_summary.is_object() || !server_summary.contains("timeline") ||
      server_summary.value("engine", json()).is_null()) {
    return series;
  }
  for (const auto& [name, values] : server_summary.at("timeline").items()) {
    auto& out = series[name == "t_s" ? std::string("server_t_s") : "server_" + name];
    for (const auto& v : values)
      out.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN());
  }
  return series;
}

}  // namespace ironbench::serve
