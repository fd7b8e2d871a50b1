# What `cmake --install` (or `make install`) puts under the prefix: the CUDA
# toolchain a user needs to build and run CUDA programs on Kestrel.
#   bin/kestrel-cc                      the compiler driver
#   lib/libkestrel_cudart.so*           the CUDA runtime (runtime, driver and backends inside;
#                                       it needs elfutils' shared libdw and libelf at run time)
#   include/kestrel/                    the C API and ABI headers
#   include/kestrel/cuda/               CUDA's host API headers (cuda_runtime.h, ...), for
#                                       host and device compilations alike
#   share/kestrel/sdk/                  the device SDK (kestrel_cuda.h, ...)
#   share/kestrel/crt/                  device start-up code and linker script
#   lib/cmake/Kestrel/                  find_package(Kestrel): Kestrel::kestrel-cc,
#                                       Kestrel::cudart, kestrel_add_executable()
#   lib/pkgconfig/kestrel-cudart.pc     for Make users (cflags, libs, and the
#                                       variable kestrel_cc: the driver's path)
# kestrel-cc finds the SDK, crt and runtime relative to its own location, so
# the prefix may be moved after installation.
include(CMakePackageConfigHelpers)

set(KESTREL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kestrel)

if(TARGET kestrel-cc AND TARGET kestrel_cudart)
  set_target_properties(kestrel_cudart PROPERTIES EXPORT_NAME cudart)
  set_target_properties(kestrel_headers PROPERTIES EXPORT_NAME headers)
  install(TARGETS kestrel-cc EXPORT KestrelTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(TARGETS kestrel_cudart kestrel_headers EXPORT KestrelTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kestrel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/sw_kernels/sdk/include DESTINATION ${CMAKE_INSTALL_DATADIR}/kestrel/sdk)
  install(FILES ${PROJECT_SOURCE_DIR}/sw_kernels/sdk/kestrel_entry.h DESTINATION ${CMAKE_INSTALL_DATADIR}/kestrel/sdk)
  install(FILES ${PROJECT_SOURCE_DIR}/sw_kernels/crt/crt.S ${PROJECT_SOURCE_DIR}/sw_kernels/crt/kestrel.ld
          DESTINATION ${CMAKE_INSTALL_DATADIR}/kestrel/crt)

  install(EXPORT KestrelTargets NAMESPACE Kestrel:: DESTINATION ${KESTREL_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KestrelConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/KestrelConfig.cmake
                                INSTALL_DESTINATION ${KESTREL_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/KestrelConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/KestrelConfig.cmake ${PROJECT_BINARY_DIR}/KestrelConfigVersion.cmake
                ${PROJECT_SOURCE_DIR}/cmake/KestrelCuda.cmake
          DESTINATION ${KESTREL_INSTALL_CMAKEDIR})

  file(RELATIVE_PATH KESTREL_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/kestrel-cudart.pc.in ${PROJECT_BINARY_DIR}/kestrel-cudart.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/kestrel-cudart.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
