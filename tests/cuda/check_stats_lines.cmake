# Runs PROGRAM with KESTREL_STATS=STATS and checks that the statistics file
# holds TOTAL launch records (one JSON line each), INSIDE of them in the
# CUDA profiler window.
file(REMOVE ${STATS})
set(ENV{KESTREL_STATS} ${STATS})
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE result OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed: ${result}")
endif()
file(STRINGS ${STATS} records REGEX "^\\{\"launch\": *[0-9]+")
file(STRINGS ${STATS} inside REGEX "\"profiler_window\": *true")
list(LENGTH records count)
list(LENGTH inside count_inside)
if(NOT count EQUAL TOTAL OR NOT count_inside EQUAL INSIDE)
  message(FATAL_ERROR "${STATS} holds ${count} launch records, ${count_inside} in the profiler window; "
                      "expected ${TOTAL}, ${INSIDE}")
endif()
message(STATUS "${count} launch records, ${count_inside} in the profiler window, as expected")
