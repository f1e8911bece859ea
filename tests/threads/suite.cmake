# --threads N is honoured by every kernel (oneDNN fixes a primitive's threads when it is
# created): per-thread CPU time of a ResNet-50 run read from /proc while it runs.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME runtime_threads_option_is_honoured
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_thread_count.py
                 --openge $<TARGET_FILE:openge>
                 --model ${CMAKE_CURRENT_BINARY_DIR}/profiling_cli/resnet50.onnx)
set_tests_properties(runtime_threads_option_is_honoured PROPERTIES
                     FIXTURES_REQUIRED openge_resnet50_model TIMEOUT 300 LABELS runtime)
