#include "comm/node_ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace ironbench::comm {

namespace {
constexpr std::size_t name_bytes = 256;
}

void assign_local_ranks_by_host(launch_info& launch, bootstrap& world, const std::string& host_name) {
  if (launch.local_rank_known || world.size() < 2) return;
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
  if (launch.size != world.size()) {
    launch.rank = world.rank();
    launch.size = world.size();
  }
  launch.local_rank = below;
  launch.local_size = same;
  launch.local_rank_known = true;
}

std::string this_host_name() {
  std::array<char, name_bytes> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace ironbench::comm
