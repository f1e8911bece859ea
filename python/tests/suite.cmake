# pytest suites of the Python package, one ctest per test file so that ctest -j runs them side
# by side. pytest exits 5 when it collects nothing, which ctest counts as a failure; a skipped
# test is listed (-rs). A file whose every test was skipped (the spec pages absent beside the
# checkout) exits 77 (conftest.py), which ctest reports as not run rather than passed.
file(GLOB OPENGE_PYTHON_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
foreach(test_file ${OPENGE_PYTHON_TESTS})
  get_filename_component(test_name ${test_file} NAME_WE)
  add_test(NAME python_${test_name}
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -rs -p no:cacheprovider ${test_file}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(python_${test_name} PROPERTIES
    TIMEOUT 600
    SKIP_RETURN_CODE 77
    LABELS python
    ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;OPENGE_CLI=$<TARGET_FILE:openge>;OPENGE_SOURCE_DIR=${PROJECT_SOURCE_DIR};OPENGE_PYTHON_TEST_DATA=${CMAKE_BINARY_DIR}/python_test_data;OPENGE_BUILD_DIR=${CMAKE_BINARY_DIR};OPENGE_PYTHON_SITEARCH=${Python3_SITEARCH};PYTHONDONTWRITEBYTECODE=1")
endforeach()
