#include "cli/burn_in_options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "validate/burn_in.hpp"

namespace ironbench::cli {

void add_burn_in_options(CLI::App& command, burn_in_arguments& a) {
  a.given = {
      command.add_option("--duration", a.duration, "burn-in: how long to keep the devices busy (30s, 10m, 2h)")
          ->capture_default_str(),
      command
          .add_option("--interval", a.interval,
                      "burn-in: the length of one reported interval (at least 1s; under 10s is flagged noisier)")
          ->capture_default_str(),
      command
          .add_option("--max-drop", a.max_drop_percent,
                      "burn-in: FAIL when the last intervals' median throughput is more than this % below the first "
                      "intervals'")
          ->capture_default_str(),
      command
          .add_option("--max-cv", a.max_cv_percent, "burn-in: FAIL when the intervals' throughput CV exceeds this %")
          ->capture_default_str(),
      command
          .add_option("--max-corrected", a.max_corrected,
                      "burn-in: FAIL when a device's corrected error counts rise by more than this")
          ->capture_default_str(),
  };
}

void apply_burn_in_options(const burn_in_arguments& a, validate::validation_settings& s) {
  if (s.lvl != validate::level::burn_in) {
    for (const auto* option : a.given) {
      if (option->count() > 0) {
        throw usage_error(fmt::format("{} applies to --level burn-in only", option->get_name()));
      }
    }
    return;
  }
  s.burn_in_duration_s = validate::parse_duration(a.duration, "--duration");
  s.burn_in_interval_s = validate::parse_duration(a.interval, "--interval");
  s.burn_in.max_drop = a.max_drop_percent / 100;
  s.burn_in.max_cv = a.max_cv_percent / 100;
  s.burn_in.max_corrected = a.max_corrected;
  validate::check_burn_in_settings(s);
}

}  // namespace ironbench::cli
