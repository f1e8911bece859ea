# Training on real data (tests/training/run_digits.py): the digits MLP and CNN trained by
# `openge train`, their saved models checked by `openge run` on held-out samples.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
foreach(case mlp cnn mlp_adam mlp_bf16 cnn_bf16)
  add_test(NAME Training_Digits_${case}_ReachesTestAccuracy
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_digits.py --openge $<TARGET_FILE:openge>
                   --work ${CMAKE_BINARY_DIR}/training_digits_${case} --case ${case})
  set_tests_properties(Training_Digits_${case}_ReachesTestAccuracy PROPERTIES TIMEOUT 600 LABELS training)
endforeach()
