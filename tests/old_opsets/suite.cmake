# Models of ONNX opsets 1-6 in their old op forms (src/ops/opset_forms.cpp), run by `openge run`
# and compared with NumPy; old forms OpenGE does not run must be one refusal naming node, op, opset.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")

add_test(NAME old_opset_models
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/old_opset_models.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/old_opset_models)
set_tests_properties(old_opset_models PROPERTIES TIMEOUT 300 LABELS conformance)
