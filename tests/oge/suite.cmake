# openge compile / openge run --model M.oge through the CLI: the demo model's
# outputs from its .oge are byte-identical to those from its .onnx, a conflicting option and a
# truncated .oge are one error line and a non-zero exit, and a failed compile leaves no file.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME openge_compile_cli
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_compile_cli.py
                 --openge $<TARGET_FILE:openge> --model ${CMAKE_SOURCE_DIR}/models/demo.onnx
                 --work ${CMAKE_CURRENT_BINARY_DIR}/compile_cli)
set_tests_properties(openge_compile_cli PROPERTIES TIMEOUT 300 LABELS compile)
