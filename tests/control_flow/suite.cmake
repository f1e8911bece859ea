# Control flow: a model PyTorch exports from a scripted for loop and while loop (Loop
# nodes with growing loop-carried state and an If nested in a Loop body) runs through `openge run`
# and matches PyTorch's output. Without torch, the committed export and expectation are used.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME control_flow_torch_loop_model
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/torch_loop.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/control_flow_torch_loop)
set_tests_properties(control_flow_torch_loop_model PROPERTIES TIMEOUT 300 LABELS control_flow)
