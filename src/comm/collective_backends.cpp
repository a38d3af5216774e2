#include "comm/collective_backends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#if IRONBENCH_WITH_GPU
#include "comm/gpu_comm_buffer.hpp"
#endif
#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif
#if IRONBENCH_WITH_NCCL
#include "comm/nccl/nccl_communicator.hpp"
#endif

namespace ironbench::comm {
namespace {

backend_factory mpi_host() {
#if IRONBENCH_WITH_MPI
  return [](const std::shared_ptr<bootstrap>& view, const core::device_info&) { return mpi_host_backend(view); };
#else
  return {};
#endif
}

backend_factory mpi_gpu() {
#if IRONBENCH_WITH_MPI && IRONBENCH_WITH_GPU
  return [](const std::shared_ptr<bootstrap>& view, const core::device_info& device) {
    select_gpu(device.index);
    return mpi_device_backend(view, {fmt::format("device buffers, {}", device.id),
                                     [](std::size_t bytes) { return gpu_comm_buffer(bytes); }, gpu_copy});
  };
#else
  return {};
#endif
}

backend_factory nccl() {
#if IRONBENCH_WITH_NCCL
  return [](const std::shared_ptr<bootstrap>& view, const core::device_info& device) {
    return nccl_device_backend(view, device.index);
  };
#else
  return {};
#endif
}

collective_backend_kind gpu_collectives_row(const std::string& name) {
  return {
      name,
      "one GPU per rank, chosen by local rank",
      IRONBENCH_WITH_NCCL != 0,
      fmt::format("--backend {}: this build has no GPU collectives (it needs CUDA with NCCL or ROCm with RCCL)", name),
      true,
      true,
      nccl()};
}

}  // namespace

const std::vector<collective_backend_kind>& collective_backends() {
  static const std::vector<collective_backend_kind> rows = {
      {"auto",
       "nccl/rccl when every rank has a GPU and the build has them, else mpi",
       true,
       "",
       IRONBENCH_WITH_NCCL != 0,
       false,
       {}},
      {"mpi", "host buffers", IRONBENCH_WITH_MPI != 0,
       "--backend mpi: this build has no MPI (install libopenmpi-dev and rebuild)", false, false, mpi_host()},
      {"mpi-gpu", "GPU buffers handed to a GPU-aware MPI", IRONBENCH_WITH_GPU != 0 && IRONBENCH_WITH_MPI != 0,
       IRONBENCH_WITH_MPI != 0 ? "--backend mpi-gpu: this build has no GPU runtime (it needs CUDA or ROCm)"
                               : "--backend mpi-gpu: this build has no MPI (install libopenmpi-dev and rebuild)",
       true, false, mpi_gpu()},
      gpu_collectives_row("nccl"),
      gpu_collectives_row("rccl"),
  };
  return rows;
}

std::vector<collective_backend_kind> collective_backends_named(const std::vector<std::string>& names) {
  std::vector<collective_backend_kind> rows;
  for (const auto& row : collective_backends()) {
    if (std::find(names.begin(), names.end(), row.name) != names.end()) rows.push_back(row);
  }
  return rows;
}

const collective_backend_kind& collective_backend_named(const std::string& name) {
  for (const auto& row : collective_backends()) {
    if (row.name == name) return row;
  }
  throw std::out_of_range("no collective backend " + name);
}

std::string backend_help(const std::vector<collective_backend_kind>& rows) {
  std::string text;
  for (std::size_t i = 0; i < rows.size();) {
    std::string names = rows[i].name;
    std::size_t next = i + 1;
    for (; next < rows.size() && rows[next].help == rows[i].help; ++next) names += " or " + rows[next].name;
    text += fmt::format("{}{} ({})", text.empty() ? "" : ", ", names, rows[i].help);
    i = next;
  }
  return text;
}

void validate_backend(const std::string& name, const std::vector<collective_backend_kind>& rows) {
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.name == name; });
  if (row == rows.end()) {
    std::string names;
    for (const auto& r : rows) names += (names.empty() ? "" : ", ") + r.name;
    throw usage_error(fmt::format("unknown --backend '{}' ({})", name, names));
  }
  if (!row->available) throw usage_error(row->unavailable);
}

const collective_backend_kind& resolve_backend(const std::string& name, bool use_gpus) {
  if (name == "auto") return collective_backend_named(use_gpus ? "nccl" : "mpi");
  return collective_backend_named(name);
}

}  // namespace ironbench::comm
