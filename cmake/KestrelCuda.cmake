# kestrel_add_executable(<name> [SOURCES] a.cu [b.cu host.cpp ...]
#                        [OPT -O2] [INCLUDE_DIRS dir ...] [DEFINES NAME=value ...]
#                        [FLAGS flag ...] [LIBRARIES -lfoo /path/libbar.a ...]
#                        [OUTPUT_DIRECTORY dir])
#
# Builds a whole CUDA program with kestrel-cc (docs/cuda-runtime.md): every
# .cu file's kernels run on a Kestrel device, its host code on this machine,
# linked against libkestrel_cudart.  The program is <dir>/<name>, by default
# ${CMAKE_CURRENT_BINARY_DIR}/bin/<name> (a file may not share the target's
# name in the build folder, for Ninja), rebuilt when a source or a header it
# includes changes (kestrel-cc -MF); the target <name> builds it, and its
# path is the target property KESTREL_EXECUTABLE (for add_test:
# COMMAND $<TARGET_PROPERTY:<name>,KESTREL_EXECUTABLE>) and the variable
# <name>_EXECUTABLE in the caller's scope.
#
# Works in Kestrel's own build (target kestrel-cc) and in a project that did
# find_package(Kestrel) (imported target Kestrel::kestrel-cc).
function(kestrel_add_executable name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OPT;OUTPUT_DIRECTORY" "SOURCES;INCLUDE_DIRS;DEFINES;FLAGS;LIBRARIES")
  set(inputs ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT inputs)
    message(FATAL_ERROR "kestrel_add_executable(${name}): no sources")
  endif()
  if(TARGET kestrel-cc)
    set(compiler kestrel-cc)
    set(tool_dependencies kestrel-cc kestrel_cudart)
  elseif(TARGET Kestrel::kestrel-cc)
    set(compiler Kestrel::kestrel-cc)
    set(tool_dependencies Kestrel::kestrel-cc)
  else()
    message(FATAL_ERROR "kestrel_add_executable(${name}): kestrel-cc not found (find_package(Kestrel) first)")
  endif()
  if(NOT ARG_OPT)
    set(ARG_OPT -O2)
  endif()
  set(sources)
  foreach(source IN LISTS inputs)
    get_filename_component(source ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND sources ${source})
  endforeach()
  set(flags ${ARG_OPT})
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir ${dir} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND flags -I ${dir})
  endforeach()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D ${define})
  endforeach()
  list(APPEND flags ${ARG_FLAGS})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/bin)
  endif()
  get_filename_component(ARG_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  file(MAKE_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  set(program ${ARG_OUTPUT_DIRECTORY}/${name})
  add_custom_command(
    OUTPUT ${program}
    COMMAND ${compiler} ${flags} -MF ${program}.d -o ${program} ${sources} ${ARG_LIBRARIES}
    DEPENDS ${sources} ${tool_dependencies}
    DEPFILE ${program}.d
    COMMENT "kestrel-cc ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${program})
  set_target_properties(${name} PROPERTIES KESTREL_EXECUTABLE ${program})
  set(${name}_EXECUTABLE ${program} PARENT_SCOPE)
endfunction()
