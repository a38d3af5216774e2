#include "blas/openblas_kernels.hpp"

#include <unistd.h>

#include <cstdlib>

#include "blas/openblas.hpp"
#include "core/text.hpp"
#include "platform/sysfs_reader.hpp"

namespace ironbench::blas {

std::optional<kernel_isa> openblas_family_isa(const std::string& core_name) {
  const auto name = ascii_lower(core_name);
  for (const char* n : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (name == n) return kernel_isa::avx512;
  }
  for (const char* n : {"haswell", "zen", "excavator", "skylake"}) {
    if (name == n) return kernel_isa::avx2;
  }
  for (const char* n : {"sandybridge", "bulldozer", "piledriver", "steamroller"}) {
    if (name == n) return kernel_isa::avx;
  }
  for (const char* n : {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "opteron", "opteron_sse3",
                        "barcelona", "bobcat", "katmai", "coppermine", "northwood", "banias", "athlon", "nano"}) {
    if (name == n) return kernel_isa::sse;
  }
  return std::nullopt;
}

kernel_isa widest_kernel_isa(const platform::isa_flags& cpu) {
  if (cpu.avx512f) return kernel_isa::avx512;
  if (cpu.avx2 && cpu.fma) return kernel_isa::avx2;
  if (cpu.avx) return kernel_isa::avx;
  return kernel_isa::sse;
}

std::string openblas_family_for(const platform::isa_flags& cpu) {
  switch (widest_kernel_isa(cpu)) {
    case kernel_isa::avx512: return cpu.avx512_bf16 ? "Cooperlake" : "SkylakeX";
    case kernel_isa::avx2: return "Haswell";
    case kernel_isa::avx: return "Sandybridge";
    case kernel_isa::sse: return "Nehalem";
  }
  return "Haswell";
}

std::optional<std::string> openblas_family_to_force(const std::string& chosen, const platform::isa_flags& cpu) {
  const auto kernels = openblas_family_isa(chosen);
  if (!kernels || static_cast<int>(*kernels) >= static_cast<int>(widest_kernel_isa(cpu))) return std::nullopt;
  return openblas_family_for(cpu);
}

void use_openblas_kernels_for_this_cpu(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::getenv(openblas_chose_variable) != nullptr) return;
  const auto chosen = openblas_core_name();
  const auto cpu = platform::detect_cpu(platform::sysfs_reader("/"));
  const auto family = openblas_family_to_force(chosen, cpu.isa);
  if (!family) return;
  if (::setenv("OPENBLAS_CORETYPE", family->c_str(), 1) != 0 ||
      ::setenv(openblas_chose_variable, chosen.c_str(), 1) != 0) {
    return;
  }
  ::execv("/proc/self/exe", argv);
  // The restart failed (no /proc, say): go on with OpenBLAS's own choice, which doctor reports.
  ::unsetenv("OPENBLAS_CORETYPE");
  ::unsetenv(openblas_chose_variable);
}

std::string openblas_kernel_override() {
  const char* chose = std::getenv(openblas_chose_variable);
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (chose == nullptr || forced == nullptr) return {};
  return std::string("OpenBLAS chose ") + chose + " for this CPU; ironbench set OPENBLAS_CORETYPE=" + forced +
         " (running " + openblas_core_name() + ")";
}

std::string openblas_description() {
  const auto override = openblas_kernel_override();
  return openblas_config() + (override.empty() ? "" : "; " + override);
}

}  // namespace ironbench::blas
