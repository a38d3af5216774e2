#include "comm/job_world.hpp"

#include <fmt/format.h>

#include <cstring>

#include "comm/gpu_ranks.hpp"
#include "core/error.hpp"
#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif

namespace ironbench::comm {
namespace {

constexpr const char* install_mpi = "install libopenmpi-dev and rebuild";

class one_process final : public bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string description() const override { return "one process (no MPI)"; }
  void barrier() override {}
  double sum(double value) override { return value; }
  double max(double value) override { return value; }
  double min(double value) override { return value; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  void broadcast_bytes(void*, std::size_t) override {}
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) override {
    if (bytes_per_rank > 0) std::memcpy(receive, send, bytes_per_rank);
  }
};

}  // namespace

job_world_kind job_world_for(const launch_info& launch, const collective_backend_kind& asked, bool host_has_gpus,
                             bool build_has_mpi) {
  if (launch.size > 1) {
    if (!build_has_mpi) {
      throw usage_error(
          fmt::format("this process is rank {} of {} started by {}: ranks in several processes need MPI, "
                      "and this build has none ({})",
                      launch.rank, launch.size, launch.launcher, install_mpi));
    }
    return job_world_kind::mpi;
  }
  const bool gpu_collectives = asked.gpu_collectives || (asked.name == "auto" && asked.takes_gpus && host_has_gpus);
  if (gpu_collectives) return job_world_kind::one_process;
  if (!build_has_mpi) {
    throw usage_error(fmt::format(
        "--backend {}: {} needs MPI, and this build has none ({})", asked.name,
        asked.name == "auto" ? "without a GPU, the exchange through host buffers" : "the exchange through MPI",
        install_mpi));
  }
  return job_world_kind::mpi;
}

std::shared_ptr<bootstrap> one_process_world() { return std::make_shared<one_process>(); }

job_start start_job(const collective_backend_kind& asked) {
  job_start job{detect_launch(), session::detect_live_host(), nullptr};
  const bool host_has_gpus = !gpus_of(job.host.devices.devices).empty();
  job.world = make_job_world(job_world_for(job.launch, asked, host_has_gpus, IRONBENCH_WITH_MPI));
  return job;
}

std::shared_ptr<bootstrap> make_job_world(job_world_kind kind) {
  if (kind == job_world_kind::one_process) return one_process_world();
#if IRONBENCH_WITH_MPI
  return mpi_world();
#else
  throw usage_error(fmt::format("this job needs MPI, and this build has none ({})", install_mpi));
#endif
}

}  // namespace ironbench::comm
