#include "platform/cpu_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

namespace ironbench::platform {

std::optional<cpu_times> read_cpu_times(const sysfs_reader& reader) {
  const auto text = reader.read_text("proc/stat");
  if (!text) return std::nullopt;
  std::istringstream in(text->substr(0, text->find('\n')));
  std::string label;
  cpu_times t;
  in >> label >> t.user >> t.nice >> t.system >> t.idle >> t.iowait >> t.irq >> t.softirq;
  if (label != "cpu" || in.fail()) return std::nullopt;
  if (!(in >> t.steal)) t.steal = 0;  // kernels before 2.6.11 have no steal column
  return t;
}

std::optional<cpu_competition> competition_between(const cpu_times& before, const cpu_times& after, double own_cpu_s,
                                                   double ticks_per_s) {
  const double total = after.total() - before.total();
  if (!(total > 0)) return std::nullopt;
  cpu_competition c;
  c.steal_percent = 100 * std::max(0.0, after.steal - before.steal) / total;
  c.busy_percent = 100 * std::max(0.0, after.busy() - before.busy()) / total;
  c.others_percent = std::clamp(c.busy_percent - 100 * own_cpu_s * ticks_per_s / total, 0.0, 100.0);
  return c;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double clock_ticks_per_second() {
  const long ticks = sysconf(_SC_CLK_TCK);
  return ticks > 0 ? static_cast<double>(ticks) : 100.0;
}

}  // namespace ironbench::platform
