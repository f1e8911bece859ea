# Data Dump and overflow detection through the CLI : stats CSV against
# NumPy on the converted tensors, an fp16 overflow reported at its node only and cleared by the
# generated modify_mixlist, bad dump folders refused.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME OPT_dump_config_dump_data_2_enable_dump_debug_1_dump_cli
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_dump_cli.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/dump_cli)
set_tests_properties(OPT_dump_config_dump_data_2_enable_dump_debug_1_dump_cli PROPERTIES TIMEOUT 600 LABELS dump)
