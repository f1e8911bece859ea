# A QDQ transformer made by bench/'s quantizer from a real torch export runs its weight MatMuls in
# int8 (QLinearMatMul on the AI Core engine) and stays within quantization error of the float model.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME openge_qdq_transformer_int8
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_qdq_transformer.py
                 --openge $<TARGET_FILE:openge> --work ${CMAKE_CURRENT_BINARY_DIR}/qdq_transformer)
set_tests_properties(openge_qdq_transformer_int8 PROPERTIES TIMEOUT 600 LABELS int8 SKIP_RETURN_CODE 77)
