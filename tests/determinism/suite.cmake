# deterministic=1 (OPT-deterministic): a small real model whose Conv, MatMul,
# Gemm, Softmax, ReduceMean and GlobalAveragePool reduce in parallel gives the same output bytes on
# every run at 1, 2 and 16 threads. The ResNet-50 / BERT-base check is bench/determinism_check.py.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME OPT_deterministic_SameBitsAtEveryThreadCount
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_determinism.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/determinism)
set_tests_properties(OPT_deterministic_SameBitsAtEveryThreadCount PROPERTIES TIMEOUT 600 LABELS precision)
