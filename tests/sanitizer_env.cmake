# Included at the end of a tests/ folder whose tests run programs that
# kestrel-cc links (CUDA programs, the installed-package test).  Those programs
# are not instrumented, but they load libkestrel_cudart, which is in a
# sanitizer build: ASan's runtime then has to be loaded first.  Leak checking
# stays with the instrumented test executables.  A folder lists the tests
# that load none (other tools only) in KESTREL_SANITIZER_ENV_SKIP.
if(KESTREL_SANITIZE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE kestrel_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_property(kestrel_dir_tests DIRECTORY PROPERTY TESTS)
  foreach(test_name ${kestrel_dir_tests})
    if(test_name MATCHES "^cuda\\.api\\.")
      continue()  # instrumented GoogleTest executables keep full checking
    endif()
    if(test_name IN_LIST KESTREL_SANITIZER_ENV_SKIP)
      continue()  # the folder says this test loads no Kestrel library
    endif()
    set_property(TEST ${test_name} APPEND PROPERTY ENVIRONMENT
                 "LD_PRELOAD=${kestrel_libasan}" "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0")
  endforeach()
endif()
