# Runs PROGRAM (on the backend KESTREL_BACKEND names) and checks that it
# exits 0 and that each of its stdout lines beginning "h100: " is, without
# that prefix, a line of REFERENCE (an NVIDIA GPU's output for the same
# fetches through another API), COUNT such lines in all, so that a program
# printing none cannot pass.
execute_process(COMMAND ${PROGRAM} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
message("${out}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (exit status ${status}):\n${err}")
endif()
file(STRINGS ${REFERENCE} reference_lines)
string(REPLACE "\n" ";" out_lines "${out}")
set(compared 0)
foreach(line IN LISTS out_lines)
  if(line MATCHES "^h100: (.*)$")
    list(FIND reference_lines "${CMAKE_MATCH_1}" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "not in ${REFERENCE}:\n  ${CMAKE_MATCH_1}")
    endif()
    math(EXPR compared "${compared} + 1")
  endif()
endforeach()
if(NOT compared EQUAL COUNT)
  message(FATAL_ERROR "${compared} lines compared with ${REFERENCE}, expected ${COUNT}")
endif()
message(STATUS "${compared} lines equal to ${REFERENCE}'s")
