# ASCEND_OPP_PATH (MISC-20 "users may edit or add profiles"): a SoC profile added
# under a custom opp folder is selected with soc_version and changes the precision pass's
# decisions; bad folders and unknown SoCs are one clear error.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME MISC_20_UserAddedSocProfileUnderAscendOppPath
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_opp_path.py
                 --openge $<TARGET_FILE:openge> --opp ${CMAKE_SOURCE_DIR}/opp
                 --work ${CMAKE_CURRENT_BINARY_DIR}/opp_path)
set_tests_properties(MISC_20_UserAddedSocProfileUnderAscendOppPath PROPERTIES TIMEOUT 300 LABELS precision)
