# Runs one libFuzzer target for a bounded time (cmake -P; tests/fuzz/CMakeLists.txt):
#   -DFUZZER=<executable> -DCORPUS=<committed corpus> -DWORK=<scratch folder> -DSECONDS=<n>
#   [-DUNIT_TIMEOUT=<seconds one input may take, 10 by default>]
# libFuzzer first replays every input of both folders, then fuzzes; what it
# finds new goes to WORK (emptied first), a crashing input to WORK/crash-*.
# Fails when libFuzzer reports a crash, leak, timeout or sanitizer error.
foreach(var FUZZER CORPUS WORK SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${var}= missing")
  endif()
endforeach()
if(NOT DEFINED UNIT_TIMEOUT)
  set(UNIT_TIMEOUT 10)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/new)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=${UNIT_TIMEOUT} -rss_limit_mb=2048 -print_final_stats=1
          -artifact_prefix=${WORK}/ ${WORK}/new ${CORPUS}
  WORKING_DIRECTORY ${WORK}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(GLOB artifacts ${WORK}/crash-* ${WORK}/leak-* ${WORK}/timeout-* ${WORK}/oom-*)
  message(FATAL_ERROR "${FUZZER} failed (${result}); inputs: ${artifacts}\n"
                      "Reproduce with: ${FUZZER} <input>")
endif()
