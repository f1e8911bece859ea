# --threads N is honoured by every kernel (oneDNN fixes a primitive's threads when it is
# created): per-thread CPU time of a ResNet-50 run read from /proc while it runs.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME runtime_threads_option_is_honoured
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_thread_count.py
                 --openge $<TARGET_FILE:openge>
                 --model ${CMAKE_CURRENT_BINARY_DIR}/profiling_cli/resnet50.onnx)
set_tests_properties(runtime_threads_option_is_honoured PROPERTIES
                     FIXTURES_REQUIRED openge_resnet50_model TIMEOUT 300 LABELS runtime)

# Two starts of ResNet-50 at 2 threads print one thread plan digest: the grain comes from the
# machine's calibration kept in the compile-cache folder; a corrupt one is replaced with a warning.
add_test(NAME runtime_thread_plan_same_at_every_start
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_plan_hash.py
                 --openge $<TARGET_FILE:openge>
                 --model ${CMAKE_CURRENT_BINARY_DIR}/profiling_cli/resnet50.onnx)
set_tests_properties(runtime_thread_plan_same_at_every_start PROPERTIES
                     FIXTURES_REQUIRED openge_resnet50_model TIMEOUT 300 LABELS runtime)

# num_threads=0 honours OMP_NUM_THREADS: the same test with the variable set.
add_test(NAME runtime_num_threads_zero_honours_omp_num_threads
         COMMAND openge_tests --gtest_filter=SessionOpenMp.NumThreadsZeroHonoursOmpNumThreads)
set_tests_properties(runtime_num_threads_zero_honours_omp_num_threads PROPERTIES
                     ENVIRONMENT OMP_NUM_THREADS=3 LABELS runtime)

# The ThreadSanitizer build (-DOPENGE_SANITIZE=thread) builds only the concurrency tests: this
# folder's tests and the Session's own concurrent-run tests. test.sh runs them with
# OMP_NUM_THREADS=1 (CONTRIBUTING.md, "Sanitizers", says why).
if(OPENGE_SANITIZE STREQUAL "thread")
  file(GLOB OPENGE_THREAD_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cpp)
  add_executable(openge_thread_tests ${OPENGE_THREAD_TEST_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/session/session_test.cpp)
  target_link_libraries(openge_thread_tests PRIVATE openge_internals GTest::gtest_main)
  target_include_directories(openge_thread_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(openge_thread_tests PRIVATE OPENGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
