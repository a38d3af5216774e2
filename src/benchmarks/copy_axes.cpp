#include "benchmarks/copy_axes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::benchmarks {
namespace {

const std::vector<std::string> engines = {"ce", "sm"};
const char* engine_description = "ce: copy engines (memcpy); sm: a copy kernel on the GPU's multiprocessors";

}  // namespace

std::vector<core::axis> copy_axes() {
  return {
      core::string_axis("path", copy_paths,
                        "h2d, d2h, bidir (both at once), each from pinned or _pageable host memory; d2d", copy_paths),
      core::string_axis("engine", engines, engine_description, engines),
      core::size_axis("size", {default_copy_bytes}, "bytes per copy (per direction)")};
}

std::string copy_case_unsupported(const core::parameter_set& params) {
  const auto& path = params.string("path");
  if (params.string("engine") == "sm" && path.find("_pageable") != std::string::npos) {
    return "a copy kernel cannot reach pageable host memory (only copy engines stage it)";
  }
  return {};
}

bool copy_in_first_look(const core::parameter_set& params) {
  const auto& path = params.string("path");
  return params.string("engine") == "ce" && (path == "h2d" || path == "d2h");
}

std::string copy_first_look_summary() {
  return "h2d and d2h by copy engines (any --axis of copy runs the whole product)";
}

std::string p2p_first_look_summary() {
  return "writes by copy engines to every peer (any --axis of p2p runs the whole product)";
}

core::case_footprint copy_footprint(const core::parameter_set& params) {
  core::case_footprint f;
  f.host_links = params.string("path") != "d2d";
  return f;
}

bool p2p_in_first_look(const core::parameter_set& params) {
  return params.string("engine") == "ce" && params.string("direction") == "write";
}

core::case_footprint p2p_footprint(const core::parameter_set& params) {
  core::case_footprint f;
  f.other_devices.push_back(params.string("peer"));
  return f;
}

std::vector<std::string> other_gpu_ids(const core::device_info& device) {
  std::vector<std::string> ids;
  const auto count = device.properties.value("gpu_count", 0);
  const auto vendor = device.properties.value("vendor", std::string(core::to_string(device.kind)));
  for (int i = 0; i < count; ++i) {
    if (i != device.index) ids.push_back(fmt::format("{}:{}", vendor, i));
  }
  return ids;
}

std::string p2p_unsupported(const core::device_info& device) {
  if (device.kind == core::device_kind::cpu) return "peer-to-peer copies are between GPUs";
  if (other_gpu_ids(device).empty()) {
    return fmt::format("peer-to-peer copies need at least two GPUs ({} visible)",
                       device.properties.value("gpu_count", 1));
  }
  return {};
}

std::vector<core::axis> p2p_axes(const core::device_info& device) {
  const auto peers = other_gpu_ids(device);
  const std::vector<std::string> directions = {"write", "bidir"};
  return {
      core::string_axis("peer", peers, "destination GPU (default: every other GPU)", peers),
      core::string_axis("direction", directions, "write: this GPU to the peer; bidir: both ways at once", directions),
      core::string_axis("engine", engines, engine_description, engines),
      core::size_axis("size", {default_copy_bytes}, "bytes per copy (per direction)")};
}

std::string p2p_case_unsupported(const core::parameter_set& params, const core::device_info& device) {
  if (params.string("engine") != "sm") return {};
  const auto& peer = params.string("peer");
  const auto reachable = device.properties.value("peers", json::array());
  const bool has_access = std::any_of(reachable.begin(), reachable.end(),
                                      [&](const json& id) { return id.is_string() && id.get<std::string>() == peer; });
  if (!has_access) {
    return fmt::format(
        "{} has no peer access to {}: a copy kernel cannot reach it (copy engines stage through the host)", device.id,
        peer);
  }
  return {};
}

void check_copy_params(const core::parameter_set& params, const core::device_info& device) {
  if (params.integer("size") < 1) {
    throw usage_error(fmt::format("copy: size must be at least one byte ({})", params.label()));
  }
  if (params.contains("peer")) {
    const auto peers = other_gpu_ids(device);
    if (std::find(peers.begin(), peers.end(), params.string("peer")) == peers.end()) {
      throw usage_error(fmt::format("p2p: peer '{}' is not another GPU of {} (others: {})", params.string("peer"),
                                    device.id, fmt::join(peers, ", ")));
    }
  }
}

}  // namespace ironbench::benchmarks
