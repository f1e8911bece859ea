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
