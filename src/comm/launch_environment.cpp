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

std::optional<int> first_number(const environment_reader& getenv, const char* const* names) {
  for (; *names != nullptr; ++names) {
    if (auto value = number(getenv, *names)) return value;
  }
  return std::nullopt;
}

struct launcher_variables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank[3];  ///< alternatives, in order, ending with nullptr
  const char* local_size[3];
};

constexpr launcher_variables launchers[] = {
    {"open_mpi",
     "OMPI_COMM_WORLD_RANK",
     "OMPI_COMM_WORLD_SIZE",
     {"OMPI_COMM_WORLD_LOCAL_RANK", nullptr},
     {"OMPI_COMM_WORLD_LOCAL_SIZE", nullptr}},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", {"SLURM_LOCALID", nullptr}, {"SLURM_NTASKS_PER_NODE", nullptr}},
    {"pmix", "PMIX_RANK", "PMIX_SIZE", {"PMIX_LOCAL_RANK", nullptr}, {"PMIX_LOCAL_SIZE", nullptr}},
    {"mvapich",
     "MV2_COMM_WORLD_RANK",
     "MV2_COMM_WORLD_SIZE",
     {"MV2_COMM_WORLD_LOCAL_RANK", nullptr},
     {"MV2_COMM_WORLD_LOCAL_SIZE", nullptr}},
    // MPICH's Hydra names the local rank MPI_LOCALRANKID; Cray PMI (PALS) PMI_LOCAL_RANK.
    {"mpich",
     "PMI_RANK",
     "PMI_SIZE",
     {"MPI_LOCALRANKID", "PMI_LOCAL_RANK", nullptr},
     {"MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", nullptr}},
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
    const auto local_rank = first_number(getenv, l.local_rank);
    info.local_rank = local_rank.value_or(0);
    info.local_rank_known = local_rank.has_value() || *size == 1;
    info.local_size = first_number(getenv, l.local_size).value_or(1);
    if (info.local_size == 0) info.local_size = 1;
    return info;
  }
  launch_info none;
  none.local_rank_known = false;
  return none;
}

launch_info detect_launch() {
  return detect_launch([](const char* name) { return std::getenv(name); });
}

int gpu_for(const launch_info& launch, int visible_gpus) {
  return visible_gpus > 0 ? launch.local_rank % visible_gpus : 0;
}

}  // namespace ironbench::comm
