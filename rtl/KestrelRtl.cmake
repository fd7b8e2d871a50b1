# kestrel_rtl_model(<name> TOP <module> [PARAMS <name=value>...] [EXTRA <bench .sv files>...]
#                   [ARGS <verilator args>...] [TRACE_FST] [NO_ASSERT] [EXCLUDE_FROM_ALL])
# Builds the Verilated model of one Kestrel RTL module as a static library
# <name> (class V<name>), from every file under rtl/.  Link it into a bench
# or a backend like any library.  TRACE_FST builds it with FST waveform
# support (--trace-fst; slower, links zlib); NO_ASSERT leaves the RTL's
# assertions out (--assert off: faster); EXCLUDE_FROM_ALL builds it only
# when something that needs it is built (the benches' models).
set(KESTREL_RTL_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "Kestrel RTL sources")
# `include path of the RTL (kestrel_assert.svh).
set(KESTREL_RTL_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/include CACHE INTERNAL "Kestrel RTL include folder")

# kestrel_verilated_library(<name>): call after verilate(<name> ...).  Every
# Verilated model would otherwise compile its own copy of Verilator's runtime
# (verilated.cpp, verilated_threads.cpp: about 15 s of CPU each, times some
# thirty models); they link one shared copy instead, which does not depend on
# the model or on VM_TRACE (the trace writer stays with traced models).
# Generated code is compiled without debug information: -g makes the large
# generated files take half as long again to compile and nobody steps
# through them.  The verilate() calls add OPT_SLOW -O1: the "__Slow" files
# (construction and initial settling, run once) are 40 % of the compile time
# and -O1 halves it.
function(kestrel_verilated_library name)
  if(NOT TARGET kestrel_verilated_runtime)
    add_library(kestrel_verilated_runtime STATIC
      ${VERILATOR_ROOT}/include/verilated.cpp ${VERILATOR_ROOT}/include/verilated_threads.cpp)
    target_include_directories(kestrel_verilated_runtime SYSTEM PUBLIC
      ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
    target_compile_definitions(kestrel_verilated_runtime PRIVATE
      VM_COVERAGE=0 VM_SC=0 VM_TRACE=0 VM_TRACE_FST=0 VM_TRACE_VCD=0)
    target_compile_options(kestrel_verilated_runtime PRIVATE -w -g0)
    find_package(Threads REQUIRED)
    target_link_libraries(kestrel_verilated_runtime PUBLIC Threads::Threads)
  endif()
  get_target_property(sources ${name} SOURCES)
  list(FILTER sources EXCLUDE REGEX "/include/verilated(_threads)?\\.cpp$")
  set_property(TARGET ${name} PROPERTY SOURCES ${sources})
  # A unit's model is a handful of small files, each of which spends about a
  # second of CPU parsing verilated.h and a few milliseconds on its own code:
  # such a model compiles as one translation unit (forty bench models, about
  # 250 s of CPU less).  Large models (the SMs, the GPU presets) keep their
  # files apart so that they compile in parallel.
  set(generated_bytes 0)
  set(generated_cpp ${sources})
  list(FILTER generated_cpp INCLUDE REGEX "\\.cpp$")
  foreach(source ${generated_cpp})
    file(SIZE ${source} source_bytes)
    math(EXPR generated_bytes "${generated_bytes} + ${source_bytes}")
  endforeach()
  if(generated_bytes LESS 2000000)
    # A unity build leaves out files with flags of their own (OPT_SLOW's).
    set_property(SOURCE ${generated_cpp} PROPERTY COMPILE_FLAGS)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  else()
    # Each file of a large model includes its symbol table, which pulls in
    # every class of the model and Verilator's headers: a second of CPU per
    # file, some 700 files in a build.  Precompiled once per model
    # (gpu_small: 74 s of CPU instead of 113 s).  The OPT_SLOW files (-O1)
    # take the -O2 header as it is: GCC accepts it (both define
    # __OPTIMIZE__).
    list(GET generated_cpp 0 first_cpp)
    get_filename_component(generated_dir ${first_cpp} DIRECTORY)
    file(GLOB symbol_table ${generated_dir}/*__Syms.h)
    target_precompile_headers(${name} PRIVATE ${symbol_table})
  endif()
  target_link_libraries(${name} PUBLIC kestrel_verilated_runtime)
  # Verilator's generated C++ is not ours to clean up: it is compiled without
  # the project's -Werror set (kestrel_target_warnings) on purpose.
  target_compile_options(${name} PRIVATE -w -g0)
endfunction()

function(kestrel_rtl_model name)
  cmake_parse_arguments(ARG "TRACE_FST;NO_ASSERT;EXCLUDE_FROM_ALL" "TOP" "PARAMS;EXTRA;ARGS" ${ARGN})
  file(GLOB rtl_units CONFIGURE_DEPENDS
    ${KESTREL_RTL_DIR}/prim/*.sv ${KESTREL_RTL_DIR}/fpu/*.sv ${KESTREL_RTL_DIR}/core/*.sv
    ${KESTREL_RTL_DIR}/mem/*.sv ${KESTREL_RTL_DIR}/top/*.sv ${KESTREL_RTL_DIR}/board/*.sv
    ${KESTREL_RTL_DIR}/tex/*.sv)
  # The packages come first (units use them): the FP package right after
  # kestrel_pkg, then the board's and the texture unit's.
  list(REMOVE_ITEM rtl_units ${KESTREL_RTL_DIR}/fpu/kestrel_fpu_pkg.sv ${KESTREL_RTL_DIR}/board/kestrel_board_pkg.sv
    ${KESTREL_RTL_DIR}/tex/kestrel_tex_pkg.sv)
  set(params)
  foreach(kv ${ARG_PARAMS})
    list(APPEND params -G${kv})
  endforeach()
  set(assert --assert)
  if(ARG_NO_ASSERT)
    set(assert)
  endif()
  set(trace)
  if(ARG_TRACE_FST)
    set(trace TRACE_FST)
  endif()
  if(ARG_EXCLUDE_FROM_ALL)
    add_library(${name} STATIC EXCLUDE_FROM_ALL)
  else()
    add_library(${name} STATIC)
  endif()
  verilate(${name} ${trace}
    SOURCES ${KESTREL_RTL_DIR}/pkg/kestrel_pkg.sv ${KESTREL_RTL_DIR}/fpu/kestrel_fpu_pkg.sv ${KESTREL_RTL_DIR}/board/kestrel_board_pkg.sv
      ${KESTREL_RTL_DIR}/tex/kestrel_tex_pkg.sv ${rtl_units} ${ARG_EXTRA} ${KESTREL_RTL_DIR}/verilator/simulation.vlt
    TOP_MODULE ${ARG_TOP}
    PREFIX V${name}
    VERILATOR_ARGS -Wall -Wno-fatal ${assert} -I${KESTREL_RTL_INCLUDE_DIR} -O3 --x-assign fast --x-initial fast ${params} ${ARG_ARGS}
    OPT_SLOW -O1)
  kestrel_verilated_library(${name})
  # C++ that drives the model's struct ports uses the generated layouts
  # (kestrel_contract.hpp, tools/contract/).
  target_include_directories(${name} PUBLIC ${KESTREL_RTL_INCLUDE_DIR})
endfunction()

# kestrel_synth_tests(<prefix> <labels> <entry>...): one CTest test
# <prefix>_<name> per entry "name:top:params[:flags]" (params a comma list of
# name=value, flags a comma list), running rtl/scripts/rtl_synth.sh on that
# top.  Flags: hierarchy (synthesized without flattening, each module once:
# rtl_synth.sh --hierarchy), coarse (rtl_synth.sh --coarse), noshare (no
# SAT-based resource sharing: rtl_synth.sh --noshare), long (label long:
# `make test-long` only).
function(kestrel_synth_tests prefix labels)
  foreach(entry ${ARGN})
    string(REPLACE ":" ";" fields "${entry}")
    list(GET fields 0 test_name)
    list(GET fields 1 top)
    list(GET fields 2 params)
    set(flags)
    list(LENGTH fields field_count)
    if(field_count GREATER 3)
      list(GET fields 3 flags)
      string(REPLACE "," ";" flags "${flags}")
    endif()
    set(test_labels ${labels})
    if(long IN_LIST flags)
      list(APPEND test_labels long)
    endif()
    set(mode)
    if(hierarchy IN_LIST flags)
      list(APPEND mode --hierarchy)
    endif()
    if(coarse IN_LIST flags)
      list(APPEND mode --coarse)
    endif()
    if(noshare IN_LIST flags)
      list(APPEND mode --noshare)
    endif()
    string(REPLACE "," ";" param_list "${params}")
    add_test(NAME ${prefix}_${test_name} COMMAND ${KESTREL_RTL_DIR}/scripts/rtl_synth.sh ${mode} ${top} ${param_list})
    set_tests_properties(${prefix}_${test_name} PROPERTIES LABELS "${test_labels}")
  endforeach()
endfunction()
