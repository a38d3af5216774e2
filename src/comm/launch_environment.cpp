#include "comm/launch_environment.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace ironbench::comm {
namespace {

std::optional<int> number(const environment_reader& getenv, const char* name) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

struct launcher_variables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};

constexpr launcher_variables launchers[] = {
    {"open_mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
    {"pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"},
    {"mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
};

}  // namespace

launch_info detect_launch(const environment_reader& getenv) {
  for (const auto& l : launchers) {
    const auto rank = number(getenv, l.rank);
    const auto size = number(getenv, l.size);
    if (!rank || !size || *size == 0 || *rank >= *size) continue;
    launch_info info;
    info.launcher = l.launcher;
    info.rank = *rank;
    info.size = *size;
    info.local_rank = number(getenv, l.local_rank).value_or(0);
    info.local_size = number(getenv, l.local_size).value_or(1);
    if (info.local_size == 0) info.local_size = 1;
    return info;
  }
  return {};
}

launch_info detect_launch() {
  return detect_launch([](const char* name) { return std::getenv(name); });
}

int gpu_for(const launch_info& launch, int visible_gpus) {
  return visible_gpus > 0 ? launch.local_rank % visible_gpus : 0;
}

}  // namespace ironbench::comm
