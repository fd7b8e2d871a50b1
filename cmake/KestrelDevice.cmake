# kestrel_add_device_module(<name> SOURCES a.cu [b.cu ...]
#                           [XLEN 64|32] [OPT -O2] [DEBUG | LINE_INFO] [INCLUDE_DIRS dir ...]
#                           [DEFINES NAME=value ...])
#
# DEBUG compiles with -g, LINE_INFO with -lineinfo (line tables only): the
# module keeps DWARF, from which the runtime names the source line of a fault
# (docs/reliability.md).
# Compiles CUDA sources with kestrel-cc (tools/kestrel-cc) into the device
# module ${CMAKE_CURRENT_BINARY_DIR}/<name>.rv<XLEN>.kmod, rebuilt when a
# source, a header it includes (kestrel-cc -MF), the SDK, the start-up code or
# kestrel-cc itself changes.  Creates the target <name>_rv<XLEN> (built by
# default) and gives the module's path as
#   * the variable <name>_rv<XLEN>_KMOD in the caller's scope, and
#   * the target property KESTREL_MODULE of <name>_rv<XLEN>, for use in
#     generator expressions: $<TARGET_PROPERTY:vector_add_rv64,KESTREL_MODULE>.
# Without a device toolchain (see tools/kestrel-cc/CMakeLists.txt) it warns
# once and creates nothing, so configuration still succeeds.
function(kestrel_add_device_module name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "DEBUG;LINE_INFO" "XLEN;OPT" "SOURCES;INCLUDE_DIRS;DEFINES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kestrel_add_device_module(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kestrel_add_device_module(${name}): SOURCES is required")
  endif()
  if(NOT ARG_XLEN)
    set(ARG_XLEN 64)
  endif()
  if(NOT ARG_XLEN MATCHES "^(32|64)$")
    message(FATAL_ERROR "kestrel_add_device_module(${name}): XLEN must be 32 or 64, not ${ARG_XLEN}")
  endif()
  if(NOT ARG_OPT)
    set(ARG_OPT -O2)
  endif()
  if(NOT ARG_OPT MATCHES "^-O[0123sz]$")
    message(FATAL_ERROR "kestrel_add_device_module(${name}): OPT must be -O0..-O3, -Os or -Oz, not ${ARG_OPT}")
  endif()
  if(NOT KESTREL_DEVICE_TOOLCHAIN_FOUND OR NOT TARGET kestrel-cc)
    message(WARNING "kestrel_add_device_module(${name}): no device toolchain, module not built")
    return()
  endif()

  set(target ${name}_rv${ARG_XLEN})
  set(module ${CMAKE_CURRENT_BINARY_DIR}/${target}.kmod)
  set(sources)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(source ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND sources ${source})
  endforeach()
  set(flags -rv${ARG_XLEN} ${ARG_OPT})
  if(ARG_DEBUG)
    list(APPEND flags -g)
  elseif(ARG_LINE_INFO)
    list(APPEND flags -lineinfo)
  endif()
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir ${dir} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND flags -I ${dir})
  endforeach()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D ${define})
  endforeach()
  file(GLOB sdk_files
    ${PROJECT_SOURCE_DIR}/sw_kernels/sdk/include/*
    ${PROJECT_SOURCE_DIR}/include/kestrel/cuda/*
    ${PROJECT_SOURCE_DIR}/sw_kernels/sdk/kestrel_entry.h
    ${PROJECT_SOURCE_DIR}/sw_kernels/crt/*)

  add_custom_command(
    OUTPUT ${module}
    COMMAND kestrel-cc ${flags} -MF ${module}.d -o ${module} ${sources}
    DEPENDS ${sources} ${sdk_files} kestrel-cc
    DEPFILE ${module}.d
    COMMENT "kestrel-cc ${target}.kmod"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${module})
  set_target_properties(${target} PROPERTIES KESTREL_MODULE ${module})
  set(${target}_KMOD ${module} PARENT_SCOPE)
endfunction()
