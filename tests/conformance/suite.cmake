# ONNX backend node conformance: generates ONNX 1.12's node cases once per build dir (cached in
# <build>/onnx_backend_data) and runs every case of the in-scope ops through the openge CLI.
# Debian's python has onnx + numpy; the python3 on PATH may not.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")

add_test(NAME conformance_onnx_backend_nodes
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_conformance.py
                 --openge $<TARGET_FILE:openge>
                 --data ${CMAKE_BINARY_DIR}/onnx_backend_data
                 --expected ${CMAKE_CURRENT_LIST_DIR}/expected_failures.txt)
set_tests_properties(conformance_onnx_backend_nodes PROPERTIES TIMEOUT 900 LABELS conformance)
