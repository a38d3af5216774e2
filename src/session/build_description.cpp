#include "session/build_description.hpp"

#include "blas/openblas.hpp"
#include "ironbench/build_config.hpp"

namespace ironbench::session {

json build_description() {
  return json{
      {"name", "ironbench"},
      {"version", build::version},
      {"git", build::git_describe},
      {"build_type", build::build_type},
      {"compiler", build::cxx_compiler},
      {"native_arch", build::native_arch},
      {"features",
       {{"cuda", build::have_cuda}, {"hip", build::have_hip}, {"mpi", build::have_mpi}, {"torch", build::have_torch}}},
      {"libraries", {{"openblas", blas::openblas_config()}}}};
}

}  // namespace ironbench::session
