// Which kernels OpenBLAS runs on this CPU, and making it run the right ones. OpenBLAS built
// with DYNAMIC_ARCH picks a kernel family from the CPU's model number when it loads; a release
// that does not know the model falls back to its oldest x86-64 kernels (Debian 12's 0.3.21 runs
// "Prescott", SSE3, on Sapphire and Emerald Rapids: a sixth of the CPU's GEMM rate). That is
// the library's choice, not the machine's fault, so ironbench makes OpenBLAS load with the
// newest family the CPU's instructions allow (OPENBLAS_CORETYPE) before it measures anything.
#pragma once

#include <optional>
#include <string>

#include "platform/cpu_info.hpp"

namespace ironbench::blas {

/// The environment variable ironbench sets, on restarting itself, to what OpenBLAS chose by
/// itself ("Prescott"); its presence also means the restart happened, so there is never more
/// than one.
inline constexpr const char* openblas_chose_variable = "IRONBENCH_OPENBLAS_CHOSE";

/// The widest vector instructions OpenBLAS kernel families use, and a CPU has.
enum class kernel_isa { sse, avx, avx2, avx512 };

/// The instructions kernel family `core_name` ("Prescott", "Haswell", "SkylakeX" ...; any case)
/// uses; nullopt for names of other architectures or ones it does not know.
[[nodiscard]] std::optional<kernel_isa> openblas_family_isa(const std::string& core_name);

/// The widest vector instructions of a CPU with `cpu` flags.
[[nodiscard]] kernel_isa widest_kernel_isa(const platform::isa_flags& cpu);

/// The newest OpenBLAS kernel family a CPU with `cpu` flags can run: "Cooperlake" for AVX-512
/// with BF16 (its bf16 GEMM kernels; fp32 and fp64 as SkylakeX), "SkylakeX", "Haswell",
/// "Sandybridge", "Nehalem".
[[nodiscard]] std::string openblas_family_for(const platform::isa_flags& cpu);

/// The family to make OpenBLAS use when it chose `chosen` on a CPU with `cpu` flags: nullopt when
/// `chosen` already uses the CPU's widest instructions, or is not an x86 family ironbench knows.
[[nodiscard]] std::optional<std::string> openblas_family_to_force(const std::string& chosen,
                                                                  const platform::isa_flags& cpu);

/// Called first thing in main(): when the loaded OpenBLAS chose a family narrower than this
/// CPU's instructions, and OPENBLAS_CORETYPE was not set by the user (whose setting stands), sets
/// OPENBLAS_CORETYPE and `openblas_chose_variable` and restarts the program in place
/// (execv of /proc/self/exe: same process, arguments and MPI environment) so that OpenBLAS
/// initialises with it. Returns when there is nothing to do, after one restart, or when the
/// restart failed (doctor's blas_kernels finding then tells the user).
void use_openblas_kernels_for_this_cpu(char** argv);

/// What the run should record about the kernels: "OpenBLAS chose Prescott for this CPU;
/// ironbench set OPENBLAS_CORETYPE=Cooperlake", or "" when ironbench changed nothing.
[[nodiscard]] std::string openblas_kernel_override();

/// openblas_config(), followed by openblas_kernel_override() where ironbench chose the kernels:
/// what every run and CPU GEMM case records as the library.
[[nodiscard]] std::string openblas_description();

}  // namespace ironbench::blas
