# The per-node precision report written beside the graph dumps.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME PrecisionReport_WrittenBesideTheGraphDumps
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_precision_report.py
                 --openge $<TARGET_FILE:openge> --work ${CMAKE_CURRENT_BINARY_DIR}/precision_report)
set_tests_properties(PrecisionReport_WrittenBesideTheGraphDumps PROPERTIES TIMEOUT 300 LABELS precision)
