# The layer table of docs/ARCHITECTURE.md ("Layers") holds for every include of src/, tools/ and
# python/src/, and the check catches a planted forbidden include.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
add_test(NAME layer_check COMMAND ${OPENGE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check_layers.py
                                  --root ${PROJECT_SOURCE_DIR})
add_test(NAME layer_check_catches_planted_include
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_planted_include.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layer_check layer_check_catches_planted_include PROPERTIES TIMEOUT 120 LABELS layers)
# No issue numbers in code comments (scripts/check_comments.py), and the check sees a planted one.
add_test(NAME comment_check COMMAND ${OPENGE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check_comments.py
                                    --root ${PROJECT_SOURCE_DIR})
add_test(NAME comment_check_catches_planted_issue_number
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_planted_comment.py ${PROJECT_SOURCE_DIR})
set_tests_properties(comment_check comment_check_catches_planted_issue_number PROPERTIES TIMEOUT 120 LABELS layers)
# Every C++ file follows .clang-format (scripts/check_format.py), and the check sees a planted
# misformatted file.
add_test(NAME format_check COMMAND ${OPENGE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check_format.py
                                   --root ${PROJECT_SOURCE_DIR})
add_test(NAME format_check_catches_misformatted_file
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_planted_format.py ${PROJECT_SOURCE_DIR})
set_tests_properties(format_check format_check_catches_misformatted_file PROPERTIES TIMEOUT 300 LABELS layers)
