// ironbench doctor: this machine's settings that make results low or noisy, each with what was
// read, the results it affects and the fix (doctor/).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/json_text.hpp"
#include "doctor/checks.hpp"
#include "doctor/examine.hpp"
#include "doctor/findings_output.hpp"
#include "session/live_host.hpp"

namespace ironbench::cli {

command_action add_doctor_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("doctor",
                         "Check this machine for settings that make results low or noisy (BLAS kernels, CPU and GPU "
                         "settings, NCCL/RCCL environment), with the fix for each");
  struct options {
    bool json = false;
    double window_s = 1;
  };
  auto o = std::make_shared<options>();
  command->add_flag("--json", o->json, "Print JSON: the findings and the facts they were judged on");
  command->add_option("--window", o->window_s, "Seconds to watch hypervisor steal and cgroup throttling")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  return [o] {
    const auto host = session::detect_live_host();
    const auto examination = doctor::examine_this_machine(host.devices.devices, o->window_s);
    if (o->json) {
      std::cout << core::json_text(doctor::to_json(examination), 2) << '\n';
    } else {
      doctor::write_findings(examination.findings, doctor::doctor_checks().size(), std::cout);
    }
    return exit_ok;
  };
}

}  // namespace ironbench::cli
