# cmake -DBUILD_DIR=<kestrel build> -DWORK_DIR=<scratch> -DSOURCE_DIR=<this folder> -DCXX=<c++> -P package_test.cmake
# Installs Kestrel's build into a fresh prefix, builds an outside CMake
# project against it (find_package + kestrel_add_executable), runs what it
# built, then builds plain C++ with pkg-config's flags and runs that.
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_test.cmake: ${var} is not set")
  endif()
endforeach()
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${output}")
  endif()
  message(STATUS "${output}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(installed bin/kestrel-cc include/kestrel/cuda/cuda_runtime.h share/kestrel/crt/kestrel.ld
                  include/kestrel/abi.h)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "the install lacks ${installed}")
  endif()
endforeach()

set(ENV{KESTREL_BACKEND} model)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/user -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/user)
run(${WORK_DIR}/user/out/saxpy)
run(${WORK_DIR}/user/count_devices)

# pkg-config, as a Makefile would use it.
file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
execute_process(COMMAND pkg-config --cflags --libs kestrel-cudart OUTPUT_VARIABLE flags
                RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know kestrel-cudart (PKG_CONFIG_PATH=${pc_dirs})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -std=c++17 ${SOURCE_DIR}/count_devices.cpp ${flags} -o ${WORK_DIR}/count_devices_pc)
run(${WORK_DIR}/count_devices_pc)
execute_process(COMMAND pkg-config --variable=kestrel_cc kestrel-cudart OUTPUT_VARIABLE kestrel_cc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
run(${kestrel_cc} -o ${WORK_DIR}/saxpy_pc ${SOURCE_DIR}/saxpy.cu)
run(${WORK_DIR}/saxpy_pc)
