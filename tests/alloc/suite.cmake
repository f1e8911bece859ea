# Allocations per run: a binary of its own, because it replaces the process's
# allocator to count (tests/alloc/alloc_counter.h). Not in sanitizer builds: they own malloc.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
if(NOT OPENGE_SANITIZE)
  add_executable(openge_alloc_tests ${CMAKE_CURRENT_LIST_DIR}/alloc_counter.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/allocations_per_run.cpp)
  target_link_libraries(openge_alloc_tests PRIVATE openge_internals GTest::gtest_main)
  # dladdr names this binary's functions in a failure's report.
  set_target_properties(openge_alloc_tests PROPERTIES ENABLE_EXPORTS ON)
  set(OPENGE_ALLOC_MODELS_DIR ${CMAKE_CURRENT_BINARY_DIR}/alloc_models)
  add_test(NAME alloc_models_setup
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_alloc_models.py ${OPENGE_ALLOC_MODELS_DIR})
  set_tests_properties(alloc_models_setup PROPERTIES FIXTURES_SETUP openge_alloc_models TIMEOUT 120 LABELS runtime)
  add_test(NAME allocations_per_run COMMAND openge_alloc_tests)
  set_tests_properties(allocations_per_run PROPERTIES FIXTURES_REQUIRED openge_alloc_models
                       ENVIRONMENT OPENGE_ALLOC_MODELS=${OPENGE_ALLOC_MODELS_DIR} TIMEOUT 300 LABELS runtime)
endif()
