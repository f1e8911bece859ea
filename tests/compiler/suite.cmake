# The online compiler's progress bar through the CLI: drawn when stderr is a
# terminal (a pseudo-terminal here), counting compiled and cached kernels; absent on a pipe.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME openge_compile_progress_bar
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_progress_bar.py
                 --openge $<TARGET_FILE:openge> --work ${CMAKE_CURRENT_BINARY_DIR}/progress_bar)
set_tests_properties(openge_compile_progress_bar PROPERTIES TIMEOUT 300 LABELS compile)
