// The collective backends, one table: each row names a backend of --backend, says what it
// does, whether this build has it, and makes one. The option's help text, its "unknown
// --backend" error and the dispatch of `collectives` come from this table; other multi-rank
// workloads (tp_infer) validate against a subset of its rows.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "core/device_info.hpp"

namespace ironbench::comm {

/// Makes a rank's backend over `view` measuring on `device`.
using backend_factory = std::function<std::unique_ptr<collective_backend>(const std::shared_ptr<bootstrap>& view,
                                                                          const core::device_info& device)>;

/// One row of the table.
struct collective_backend_kind {
  std::string name;              ///< auto, mpi, mpi-gpu, nccl, rccl
  std::string help;              ///< what it does; rows with the same help are listed together ("nccl or rccl (...)")
  bool available = true;         ///< whether this build has it
  std::string unavailable;       ///< the usage error when it is named but not available
  bool takes_gpus = false;       ///< the ranks measure on GPUs (auto: when the build has GPU collectives)
  bool gpu_collectives = false;  ///< NCCL/RCCL: several ranks per process and GPU graphs work
  backend_factory create;        ///< empty for auto, which picks another row
};

/// Every row: auto, mpi, mpi-gpu, nccl, rccl.
[[nodiscard]] const std::vector<collective_backend_kind>& collective_backends();

/// The rows of `names`, in the table's order.
[[nodiscard]] std::vector<collective_backend_kind> collective_backends_named(const std::vector<std::string>& names);

/// The row called `name` (throws std::out_of_range for another name).
[[nodiscard]] const collective_backend_kind& collective_backend_named(const std::string& name);

/// --backend's help: "NAME (HELP), NAME or NAME (HELP), ...".
[[nodiscard]] std::string backend_help(const std::vector<collective_backend_kind>& rows);

/// Checks `name` against `rows`: throws usage_error "unknown --backend 'x' (auto, mpi, ...)"
/// when no row has the name, or the row's `unavailable` text when this build lacks it.
void validate_backend(const std::string& name, const std::vector<collective_backend_kind>& rows);

/// The row that measures when `name` is asked for and the ranks did (`use_gpus`) or did not
/// take GPUs: auto becomes nccl or mpi; every other row stays itself.
[[nodiscard]] const collective_backend_kind& resolve_backend(const std::string& name, bool use_gpus);

}  // namespace ironbench::comm
