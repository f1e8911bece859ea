# Fault injection through the CLI (docs/RELIABILITY.md): concurrent processes on shared folders,
# seeded SIGKILLs of every artifact writer, a full disk. Each script runs real openge processes.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
set(OPENGE_FAULT_DIR ${CMAKE_CURRENT_BINARY_DIR}/fault_injection)

add_test(NAME fault_concurrent_processes_never_mix_artifacts
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_concurrent_processes.py
                 --openge $<TARGET_FILE:openge>
                 --model ${PROJECT_SOURCE_DIR}/models/demo.onnx
                 --work ${OPENGE_FAULT_DIR}/concurrent --rounds 5)
set_tests_properties(fault_concurrent_processes_never_mix_artifacts PROPERTIES TIMEOUT 300 LABELS fault)

# 50 seeded SIGKILLs per artifact writer, each followed by a check of every file under a final
# name; one more run must then succeed and leave no temporary of a dead process.
foreach(writer oge profile dump checkpoint knowledge_base cache)
  add_test(NAME fault_seeded_kills_${writer}
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_seeded_kills.py
                   --openge $<TARGET_FILE:openge>
                   --demo ${PROJECT_SOURCE_DIR}/models/demo.onnx
                   --writer ${writer} --seeds 50
                   --work ${OPENGE_FAULT_DIR}/kills_${writer})
  set_tests_properties(fault_seeded_kills_${writer} PROPERTIES TIMEOUT 600 LABELS fault)
endforeach()

# Every single-op ONNX backend case of a registered op with a zero batch axis in each input in
# turn: no signal, no hang, one error line or outputs of the shape ONNX infers. Reads the
# conformance suite's generated cases (generated there, or here when that test is not run).
add_test(NAME fault_zero_batch_axis_sweep
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/zero_dim_sweep.py
                 --openge $<TARGET_FILE:openge>
                 --data ${CMAKE_BINARY_DIR}/onnx_backend_data --jobs 2)
set_tests_properties(fault_zero_batch_axis_sweep PROPERTIES TIMEOUT 900 LABELS fault
                     DEPENDS conformance_onnx_backend_nodes)

# Every writer on a nearly full 64 MiB tmpfs (mounting needs root: otherwise exit 77, Not Run).
add_test(NAME fault_disk_full_every_writer
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_disk_full.py
                 --openge $<TARGET_FILE:openge>
                 --demo ${PROJECT_SOURCE_DIR}/models/demo.onnx
                 --work ${OPENGE_FAULT_DIR}/disk_full)
set_tests_properties(fault_disk_full_every_writer PROPERTIES TIMEOUT 600 LABELS fault SKIP_RETURN_CODE 77)

# Every reader given a FIFO through the CLI ends within 5 s (exit 1, or 0 where the file is optional).
add_test(NAME fault_fifo_readers_end_within_5s
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_fifo_readers.py
                 --openge $<TARGET_FILE:openge>
                 --demo ${PROJECT_SOURCE_DIR}/models/demo.onnx
                 --work ${OPENGE_FAULT_DIR}/fifo_readers)
set_tests_properties(fault_fifo_readers_end_within_5s PROPERTIES TIMEOUT 120 LABELS fault)
