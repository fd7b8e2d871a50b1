# kestrel_rtl_model(<name> TOP <module> [PARAMS <name=value>...] [EXTRA <bench .sv files>...]
#                   [ARGS <verilator args>...])
# Builds the Verilated model of one Kestrel RTL module as a static library
# <name> (class V<name>), from every file under rtl/.  Link it into a bench
# or a backend like any library.
set(KESTREL_RTL_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "Kestrel RTL sources")

function(kestrel_rtl_model name)
  cmake_parse_arguments(ARG "" "TOP" "PARAMS;EXTRA;ARGS" ${ARGN})
  file(GLOB rtl_units CONFIGURE_DEPENDS
    ${KESTREL_RTL_DIR}/prim/*.sv ${KESTREL_RTL_DIR}/fpu/*.sv ${KESTREL_RTL_DIR}/core/*.sv
    ${KESTREL_RTL_DIR}/mem/*.sv ${KESTREL_RTL_DIR}/top/*.sv)
  # The FP package must come right after kestrel_pkg (units import it).
  list(REMOVE_ITEM rtl_units ${KESTREL_RTL_DIR}/fpu/kestrel_fpu_pkg.sv)
  set(params)
  foreach(kv ${ARG_PARAMS})
    list(APPEND params -G${kv})
  endforeach()
  add_library(${name} STATIC)
  verilate(${name}
    SOURCES ${KESTREL_RTL_DIR}/pkg/kestrel_pkg.sv ${KESTREL_RTL_DIR}/fpu/kestrel_fpu_pkg.sv ${rtl_units} ${ARG_EXTRA}
    TOP_MODULE ${ARG_TOP}
    PREFIX V${name}
    VERILATOR_ARGS -Wall -Wno-fatal --assert -O3 --x-assign fast --x-initial fast ${params} ${ARG_ARGS})
  # Verilator's generated C++ is not ours to clean up: it is compiled without
  # the project's -Werror set (kestrel_target_warnings) on purpose.
  target_compile_options(${name} PRIVATE -w)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
