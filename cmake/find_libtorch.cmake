# Finds libtorch for the training workloads and defines the imported target ironbench_torch.
# Two layouts are understood:
#   PyTorch's own libtorch (a pip wheel's torch/share/cmake, or the libtorch zip):
#     TorchConfig.cmake; point CMAKE_PREFIX_PATH (or Torch_DIR) at it, e.g.
#     -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
#   Debian's and Ubuntu's libtorch-dev (1.13, CPU): no TorchConfig.cmake, but Caffe2Config.cmake
#     with the torch targets; the C++ API headers sit under torch/csrc/api/include.
# Sets torch_found, torch_why (when not found), IRONBENCH_TORCH_CUDA (libtorch has CUDA or ROCm)
# and IRONBENCH_TORCH_ORIGIN (which layout was used).

set(torch_found FALSE)
set(torch_why "no libtorch 1.13 or newer: neither TorchConfig.cmake (PyTorch) nor Caffe2Config.cmake (Debian libtorch-dev) was found")
set(IRONBENCH_TORCH_CUDA FALSE)

# PyTorch's CMake files add their own CUDA architectures and definitions to CMAKE_CUDA_FLAGS;
# ironbench's kernels keep the build's own (CMAKE_CUDA_ARCHITECTURES).
set(ironbench_cuda_flags_before_torch "${CMAKE_CUDA_FLAGS}")
find_package(Torch 1.13 CONFIG QUIET)
set(CMAKE_CUDA_FLAGS "${ironbench_cuda_flags_before_torch}")
if(Torch_FOUND)
  # TorchConfig.cmake finds libc10 with the system's folders searched first: where a
  # distribution's libtorch is installed beside a wheel (scripts/setup.sh installs Debian's),
  # the other libtorch's libc10 would be linked. Use the one beside this libtorch.
  if(c10_LIBRARY AND TORCH_INSTALL_PREFIX AND EXISTS "${TORCH_INSTALL_PREFIX}/lib/libc10.so")
    get_filename_component(c10_dir "${c10_LIBRARY}" DIRECTORY)
    get_filename_component(torch_lib_dir "${TORCH_INSTALL_PREFIX}/lib" REALPATH)
    get_filename_component(c10_dir "${c10_dir}" REALPATH)
    if(NOT c10_dir STREQUAL torch_lib_dir)
      message(STATUS "ironbench: libc10 from ${TORCH_INSTALL_PREFIX}/lib, not ${c10_LIBRARY}")
      list(TRANSFORM TORCH_LIBRARIES REPLACE "^${c10_LIBRARY}$" "${TORCH_INSTALL_PREFIX}/lib/libc10.so")
      set(c10_LIBRARY "${TORCH_INSTALL_PREFIX}/lib/libc10.so" CACHE FILEPATH "libc10 beside libtorch" FORCE)
    endif()
  endif()
  add_library(ironbench_torch INTERFACE IMPORTED GLOBAL)
  target_link_libraries(ironbench_torch INTERFACE ${TORCH_LIBRARIES})
  target_include_directories(ironbench_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
  separate_arguments(torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_compile_options(ironbench_torch INTERFACE ${torch_flags})
  if(TARGET torch_cuda OR TARGET torch_hip OR TORCH_CUDA_LIBRARIES)
    set(IRONBENCH_TORCH_CUDA TRUE)
  endif()
  # PyTorch's wheels carry their own {fmt}, whose headers then come before the system's in the
  # training code: compile it header-only there, so that it does not need the system library.
  foreach(dir ${TORCH_INCLUDE_DIRS})
    if(EXISTS "${dir}/fmt/format-inl.h")
      target_compile_definitions(ironbench_torch INTERFACE FMT_HEADER_ONLY=1)
      break()
    endif()
  endforeach()
  # The NCCL a wheel's libtorch_cuda was linked with (site-packages/nvidia/nccl): ironbench's
  # NCCL code must use the same library.
  get_filename_component(torch_site_packages "${Torch_DIR}/../../../.." ABSOLUTE)
  if(EXISTS "${torch_site_packages}/nvidia/nccl/include/nccl.h")
    set(IRONBENCH_TORCH_NCCL_ROOT "${torch_site_packages}/nvidia/nccl")
  endif()
  set(IRONBENCH_TORCH_ORIGIN "TorchConfig.cmake in ${Torch_DIR}")
  set(torch_found TRUE)
else()
  find_package(Caffe2 1.13 CONFIG QUIET)
  find_path(IRONBENCH_TORCH_API_INCLUDE torch/torch.h PATH_SUFFIXES torch/csrc/api/include)
  if(Caffe2_FOUND AND TARGET torch_library AND IRONBENCH_TORCH_API_INCLUDE)
    add_library(ironbench_torch INTERFACE IMPORTED GLOBAL)
    target_link_libraries(ironbench_torch INTERFACE torch_library)
    target_include_directories(ironbench_torch SYSTEM INTERFACE ${IRONBENCH_TORCH_API_INCLUDE})
    if(TARGET torch_cuda OR TARGET torch_hip)
      set(IRONBENCH_TORCH_CUDA TRUE)
    endif()
    set(IRONBENCH_TORCH_ORIGIN "Caffe2Config.cmake in ${Caffe2_DIR} (distribution libtorch)")
    set(torch_found TRUE)
  endif()
endif()
if(torch_found)
  message(STATUS "ironbench: libtorch from ${IRONBENCH_TORCH_ORIGIN}; GPU support in libtorch: ${IRONBENCH_TORCH_CUDA}")
endif()
