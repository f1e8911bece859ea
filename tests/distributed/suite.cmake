# Data-parallel training over Open MPI (tests/distributed/run_data_parallel.py): `mpirun -np N
# openge train` on the digits, against one process, repeated, resumed, and with a rank stopped or
# killed at random moments (20 rounds each).
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
foreach(case weights_match deterministic resume stopped_rank killed_rank profiling)
  add_test(NAME DataParallel_${case}
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_data_parallel.py --openge $<TARGET_FILE:openge>
                   --work ${CMAKE_BINARY_DIR}/data_parallel_${case} --case ${case})
  set_tests_properties(DataParallel_${case} PROPERTIES TIMEOUT 600 LABELS distributed)
endforeach()
