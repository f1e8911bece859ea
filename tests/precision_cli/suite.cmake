# Precision modes through the CLI on real models: byte equality under
# must_keep_origin_dtype, cosine >= 0.999 on ResNet-50 for the lowered modes, fp16 overflow to inf
# under force_fp16, and the explain-precision report. Reuses the profiling suite's seeded ResNet-50.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME OPT_precision_mode_3_9_11_13_precision_modes_cli
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_precision_cli.py
                 --openge $<TARGET_FILE:openge>
                 --resnet50 ${CMAKE_CURRENT_BINARY_DIR}/profiling_cli/resnet50.onnx
                 --work ${CMAKE_CURRENT_BINARY_DIR}/precision_cli)
set_tests_properties(OPT_precision_mode_3_9_11_13_precision_modes_cli PROPERTIES
                     FIXTURES_REQUIRED openge_resnet50_model TIMEOUT 900 LABELS precision)
