# `openge compare` against a golden .npy folder made by ONNX Runtime (onnxruntime-node, the peer
# runtime of bench/): the first deviating op of a bf16 run named by its model node name, the ops
# present on one side only named. Skipped (77) where onnxruntime-node is not installed.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
set(OPENGE_ORT_NODE_PATH "$ENV{HOME}/.cache/openge-peers/node_modules"
    CACHE PATH "node_modules folder holding onnxruntime-node (golden data for the compare tests)")
add_test(NAME compare_golden_ort_names_first_deviating_node
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_compare_golden.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/compare_golden_work
                 --node-path ${OPENGE_ORT_NODE_PATH})
set_tests_properties(compare_golden_ort_names_first_deviating_node
                     PROPERTIES TIMEOUT 300 LABELS dump SKIP_RETURN_CODE 77)
