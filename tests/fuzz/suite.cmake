# Hostile models: ~360 truncated, bit-flipped and hand-made invalid ONNX files (regenerated
# deterministically at test time) fed to `openge run`; each must be refused with one error line
# naming the file, without crash, hang or sanitizer report.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
set(OPENGE_SANITIZED_CLI "" CACHE FILEPATH
    "An ASan+UBSan build of the openge CLI; when set, the hostile models also run against it")

add_test(NAME loader_rejects_mutated_models
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_hostile_models.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/hostile_models)
set_tests_properties(loader_rejects_mutated_models PROPERTIES TIMEOUT 600 LABELS fuzz)

if(OPENGE_SANITIZED_CLI)
  add_test(NAME loader_rejects_mutated_models_sanitized
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_hostile_models.py
                   --openge ${OPENGE_SANITIZED_CLI}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/hostile_models_sanitized)
  set_tests_properties(loader_rejects_mutated_models_sanitized PROPERTIES TIMEOUT 900 LABELS fuzz)
endif()
