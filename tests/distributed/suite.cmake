# Data-parallel training over Open MPI (tests/distributed/run_data_parallel.py): `mpirun -np N
# openge train` on the digits, against one process, repeated, resumed, profiled, and with a rank
# stopped or killed at random moments (20 rounds each). Test names carry the spec rules they check.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
set(OPENGE_DATA_PARALLEL_CASES
    "weights_match:OPT_hcom_parallel_1_OPT_is_tailing_optimization_2"
    "deterministic:OPT_deterministic_DataParallel"
    "resume:Checkpoints"
    "stopped_rank:OPT_stream_sync_timeout_3_MISC_17_HcclExecTimeout"
    "killed_rank:KilledRank"
    "event_timeout:OPT_event_sync_timeout_1_MISC_17"
    "namespaces:TcpAcrossNetworkNamespaces"
    "split_tuning:OPT_aoe_config_aoe_mode_4_5"
    "profiling:PROF_10_PROF_21_OPT_profiling_config.profiling_options.hccl_1_sys_io_sampling_freq_1")
foreach(entry ${OPENGE_DATA_PARALLEL_CASES})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 case)
  list(GET parts 1 ids)
  add_test(NAME DataParallel_${case}_${ids}
           COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_data_parallel.py --openge $<TARGET_FILE:openge>
                   --work ${CMAKE_BINARY_DIR}/data_parallel_${case} --case ${case})
  # 77: not run (the network namespaces need root), reported as skipped, never as passed.
  set_tests_properties(DataParallel_${case}_${ids} PROPERTIES TIMEOUT 600 LABELS distributed SKIP_RETURN_CODE 77)
endforeach()
