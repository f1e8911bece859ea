# Hostile models whose tensor sizes are computed from data: 1,000 seeded ConstantOfShape /
# Expand / Tile / Range / Reshape / Resize / Pad / Concat chains with huge, negative, overflowing
# and zero dims, in constant, run-time and derived forms, each run by `openge run` under a low
# RLIMIT_AS; each must end with exit 0 or 1 and one error line naming a node, never a signal.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")

add_test(NAME hostile_sizes_from_data
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile_sizes.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/hostile_sizes
                 --count 1000 --jobs 2)
set_tests_properties(hostile_sizes_from_data PROPERTIES TIMEOUT 900 LABELS hostile)
