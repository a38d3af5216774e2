# ironbench's dependencies from a private prefix made by `scripts/setup.sh --prefix DIR`
# (Debian/Ubuntu packages unpacked without root). IRONBENCH_DEPS=DIR, as a cache variable or
# from the environment that DIR/env.sh sets, makes the build look there first for headers,
# libraries, CMake packages, pkg-config files and MPI's compiler wrapper, and writes the
# prefix's library folders into every binary's RPATH (DT_RPATH, which also covers the
# libraries those libraries load). Open MPI's libraries carry a RUNPATH of their own, which
# wins over that: runs that load them need DIR/env.sh (its LD_LIBRARY_PATH).
set(IRONBENCH_DEPS "$ENV{IRONBENCH_DEPS}" CACHE PATH "Prefix made by scripts/setup.sh --prefix (empty: the system's packages)")
if(IRONBENCH_DEPS)
  if(NOT EXISTS "${IRONBENCH_DEPS}/usr/include")
    message(FATAL_ERROR "IRONBENCH_DEPS=${IRONBENCH_DEPS} is not a prefix made by scripts/setup.sh --prefix (no usr/include)")
  endif()
  file(GLOB ironbench_deps_multiarch LIST_DIRECTORIES true "${IRONBENCH_DEPS}/usr/lib/*-linux-gnu")
  list(GET ironbench_deps_multiarch 0 ironbench_deps_lib)
  list(PREPEND CMAKE_PREFIX_PATH "${IRONBENCH_DEPS}/usr")
  set(ENV{PKG_CONFIG_PATH} "${ironbench_deps_lib}/pkgconfig:${ironbench_deps_lib}/openblas-openmp/pkgconfig:${IRONBENCH_DEPS}/usr/share/pkgconfig:$ENV{PKG_CONFIG_PATH}")
  # pkg-config and MPI's wrapper from the prefix run at configure time with its libraries.
  set(ENV{LD_LIBRARY_PATH} "${ironbench_deps_lib}:${ironbench_deps_lib}/openmpi/lib:$ENV{LD_LIBRARY_PATH}")
  set(ENV{OPAL_PREFIX} "${IRONBENCH_DEPS}/usr")
  if(NOT PKG_CONFIG_EXECUTABLE AND EXISTS "${IRONBENCH_DEPS}/usr/bin/pkgconf")
    find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
    if(NOT PKG_CONFIG_EXECUTABLE)
      set(PKG_CONFIG_EXECUTABLE "${IRONBENCH_DEPS}/usr/bin/pkgconf" CACHE FILEPATH "pkg-config" FORCE)
    endif()
  endif()
  if(NOT MPI_C_COMPILER AND EXISTS "${IRONBENCH_DEPS}/usr/bin/mpicc")
    set(MPI_C_COMPILER "${IRONBENCH_DEPS}/usr/bin/mpicc" CACHE FILEPATH "MPI C compiler wrapper" FORCE)
  endif()
  set(CMAKE_BUILD_RPATH "${ironbench_deps_lib};${ironbench_deps_lib}/openblas-openmp;${ironbench_deps_lib}/openmpi/lib")
  set(CMAKE_INSTALL_RPATH "${CMAKE_BUILD_RPATH}")
  add_link_options(LINKER:--disable-new-dtags)
  message(STATUS "ironbench: dependencies from the prefix ${IRONBENCH_DEPS}")
endif()
