// Which GPUs `ironbench serve` watches during its points: this node's, when the server runs
// on it (--gpu-telemetry auto) or when asked (on); none with off.
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "serve/metrics/point_energy.hpp"

namespace ironbench::cli {

/// Whether `url`'s host is this node: a loopback name or address, this host's name, or an
/// address of one of its interfaces.
[[nodiscard]] bool url_is_on_this_node(const std::string& url);

/// The watchers for `mode` (auto, on, off; usage_error otherwise) over `devices`' GPUs, with
/// `note` saying what is watched or why nothing is ("cuda:0 (nvml 570.86)", "off: the server is
/// not on this node", "no GPU on this node").
[[nodiscard]] serve::gpu_watch_factory serve_gpu_watch(const std::string& mode, const std::vector<std::string>& urls,
                                                       const std::vector<core::device_info>& devices,
                                                       std::string& note);

}  // namespace ironbench::cli
