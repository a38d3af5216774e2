#include "cli/serve_gpu_watch.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <memory>

#include "core/device_kinds.hpp"
#include "core/error.hpp"
#include "telemetry/case_telemetry.hpp"

namespace ironbench::cli {
namespace {

// The host part of an http(s) URL, without brackets ("::1" from "http://[::1]:8000/x").
std::string host_of(const std::string& url) {
  auto rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

bool is_interface_address(const std::string& host) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (auto* a = list; a != nullptr && !found; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    std::array<char, INET6_ADDRSTRLEN> text{};
    const void* address = nullptr;
    if (a->ifa_addr->sa_family == AF_INET) address = &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr;
    if (a->ifa_addr->sa_family == AF_INET6) address = &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr;
    if (address != nullptr && inet_ntop(a->ifa_addr->sa_family, address, text.data(), text.size()) != nullptr) {
      found = host == text.data();
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

bool url_is_on_this_node(const std::string& url) {
  const auto host = host_of(url);
  if (host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0 || host == "0.0.0.0") return true;
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) == 0 && host == name.data()) return true;
  return is_interface_address(host);
}

serve::gpu_watch_factory serve_gpu_watch(const std::string& mode, const std::vector<std::string>& urls,
                                         const std::vector<core::device_info>& devices, std::string& note) {
  if (mode != "auto" && mode != "on" && mode != "off") {
    throw usage_error(fmt::format("--gpu-telemetry takes auto, on or off, not '{}'", mode));
  }
  std::vector<core::device_info> gpus;
  for (const auto& d : devices) {
    if (core::is_gpu(d)) gpus.push_back(d);
  }
  if (mode == "off") {
    note = "off (--gpu-telemetry off)";
    return {};
  }
  if (gpus.empty()) {
    note = "no GPU on this node";
    return {};
  }
  if (mode == "auto") {
    for (const auto& url : urls) {
      if (url_is_on_this_node(url)) continue;
      note = fmt::format("off: {} is not on this node (--gpu-telemetry on watches this node's GPUs anyway)", url);
      return {};
    }
  }
  std::vector<std::string> ids;
  for (const auto& g : gpus) ids.push_back(g.id);
  note = fmt::format("{} every 100 ms", fmt::join(ids, ", "));
  const auto monitors = telemetry::gpu_case_monitors(std::chrono::milliseconds(100));
  return [gpus, monitors] {
    std::vector<serve::watched_gpu> watched;
    for (const auto& g : gpus) {
      if (auto monitor = monitors(g)) watched.push_back({g.id, std::move(monitor)});
    }
    return watched;
  };
}

}  // namespace ironbench::cli
