#include "comm/node_ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "platform/host_fingerprint.hpp"

namespace ironbench::comm {

namespace {
constexpr std::size_t name_bytes = 256;
}

void assign_local_ranks_by_host(launch_info& launch, bootstrap& world, const std::string& host_name) {
  if (world.size() < 2) return;
  // A launcher's local rank counts only when its rank and size are MPI's: variables left
  // over from an enclosing job (Slurm's, under mpiexec inside sbatch) are not this job's.
  const bool trusted = launch.local_rank_known && launch.size == world.size() && launch.rank == world.rank();
  if (world.min(trusted ? 1.0 : 0.0) == 1.0) return;
  std::array<char, name_bytes> mine{};
  std::memcpy(mine.data(), host_name.data(), std::min(host_name.size(), name_bytes - 1));
  std::vector<char> all(name_bytes * static_cast<std::size_t>(world.size()));
  world.all_gather_bytes(mine.data(), all.data(), name_bytes);
  int below = 0, same = 0;
  for (int r = 0; r < world.size(); ++r) {
    if (std::memcmp(all.data() + static_cast<std::size_t>(r) * name_bytes, mine.data(), name_bytes) != 0) continue;
    ++same;
    if (r < world.rank()) ++below;
  }
  launch.rank = world.rank();
  launch.size = world.size();
  launch.local_rank = below;
  launch.local_size = same;
  launch.local_rank_known = true;
}

std::string this_host_name() {
  if (const char* node = std::getenv(std::string(platform::node_name_variable).c_str()); node != nullptr && *node) {
    return node;
  }
  std::array<char, name_bytes> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace ironbench::comm
