# Tri-state build features: IRONBENCH_<NAME> = AUTO | ON | OFF.
#   AUTO  the feature is built where its toolchain is found,
#   ON    the toolchain must be found (configuration fails otherwise),
#   OFF   the feature is not built.
# After ironbench_resolve_feature(NAME FOUND_VAR) the variable IRONBENCH_HAVE_<NAME> is TRUE or FALSE.

function(ironbench_declare_feature name description)
  set(IRONBENCH_${name} AUTO CACHE STRING "${description} (AUTO|ON|OFF)")
  set_property(CACHE IRONBENCH_${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${IRONBENCH_${name}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "IRONBENCH_${name} must be AUTO, ON or OFF, not '${IRONBENCH_${name}}'")
  endif()
  set(IRONBENCH_${name}_MODE "${value}" PARENT_SCOPE)
endfunction()

# found: whether detection succeeded; why: what was missing (for the message).
function(ironbench_resolve_feature name found why)
  set(mode "${IRONBENCH_${name}_MODE}")
  if(mode STREQUAL "OFF")
    set(IRONBENCH_HAVE_${name} FALSE PARENT_SCOPE)
    message(STATUS "ironbench: ${name} disabled (IRONBENCH_${name}=OFF)")
  elseif(found)
    set(IRONBENCH_HAVE_${name} TRUE PARENT_SCOPE)
    message(STATUS "ironbench: ${name} enabled")
  elseif(mode STREQUAL "ON")
    message(FATAL_ERROR "IRONBENCH_${name}=ON but ${why}")
  else()
    set(IRONBENCH_HAVE_${name} FALSE PARENT_SCOPE)
    message(STATUS "ironbench: ${name} not built: ${why}")
  endif()
endfunction()
