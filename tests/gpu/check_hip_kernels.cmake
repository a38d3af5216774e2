# Compiles every GPU kernel source with hipcc for AMD GPUs, from the same .cu files the CUDA
# build uses. Run by ctest: cmake -DHIPCC=... -DSOURCE_DIR=... -DKERNELS=a.cu;b.cu
#   -DARCHITECTURES=gfx90a;gfx940 -DOUTPUT_DIR=... -P check_hip_kernels.cmake
foreach(kernel IN LISTS KERNELS)
  get_filename_component(name ${kernel} NAME_WE)
  set(arch_flags)
  foreach(arch IN LISTS ARCHITECTURES)
    list(APPEND arch_flags --offload-arch=${arch})
  endforeach()
  execute_process(
    COMMAND ${HIPCC} -x hip ${arch_flags} -std=c++17 -O2 -DIRONBENCH_GPU_HIP -I${SOURCE_DIR}/src
            -c ${SOURCE_DIR}/src/benchmarks/${kernel} -o ${OUTPUT_DIR}/${name}.o
    RESULT_VARIABLE status
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hipcc failed on ${kernel} (${ARCHITECTURES}):\n${out}\n${err}")
  endif()
  message(STATUS "hipcc: ${kernel} compiled for ${ARCHITECTURES}")
endforeach()
