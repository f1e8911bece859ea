# Profiling through the CLI, end to end (issue acceptance, spec section D):
#  - ResNet-50 profiled for 10 iterations: one op_summary row per executed task per iteration,
#    durations + gaps = step time within 5 %, op_statistic = op_summary sums, every CSV and
#    Chrome trace valid;
#  - malformed PROFILING_OPTIONS / --profile-options: one clear message, nothing left behind.
# The ResNet-50 (seeded weights, ~100 MB) is generated once per build dir by a fixture test.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")
set(OPENGE_PROFILING_CLI_DIR ${CMAKE_CURRENT_BINARY_DIR}/profiling_cli)

add_test(NAME PROF_12_16_resnet50_model_setup
         COMMAND ${OPENGE_PYTHON} ${PROJECT_SOURCE_DIR}/tools/make_resnet50_model.py --if-missing
                 ${OPENGE_PROFILING_CLI_DIR}/resnet50.onnx)
set_tests_properties(PROF_12_16_resnet50_model_setup PROPERTIES
                     FIXTURES_SETUP openge_resnet50_model TIMEOUT 300 LABELS profiling)

add_test(NAME PROF_6_7_8_9_12_13_14_15_16_17_resnet50_profile_10_iterations
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_profile_run.py
                 --openge $<TARGET_FILE:openge>
                 --model ${OPENGE_PROFILING_CLI_DIR}/resnet50.onnx
                 --work ${OPENGE_PROFILING_CLI_DIR}/resnet50_profile
                 --iterations 10)
set_tests_properties(PROF_6_7_8_9_12_13_14_15_16_17_resnet50_profile_10_iterations PROPERTIES
                     FIXTURES_REQUIRED openge_resnet50_model TIMEOUT 900 LABELS profiling)

add_test(NAME PROF_1_2_malformed_profiling_options_rejected
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_bad_profiling_options.py
                 --openge $<TARGET_FILE:openge>
                 --work ${OPENGE_PROFILING_CLI_DIR}/bad_options)
set_tests_properties(PROF_1_2_malformed_profiling_options_rejected PROPERTIES TIMEOUT 600 LABELS profiling)

# A profiling run killed with SIGKILL keeps its completed iterations; profile-report reads them.
add_test(NAME PROF_killed_run_keeps_completed_iterations
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_killed_profile.py
                 --openge $<TARGET_FILE:openge>
                 --model ${PROJECT_SOURCE_DIR}/models/demo.onnx
                 --work ${OPENGE_PROFILING_CLI_DIR}/killed_profile)
set_tests_properties(PROF_killed_run_keeps_completed_iterations PROPERTIES TIMEOUT 600 LABELS profiling)

# A real hardware counter value in op_summary (aic_metrics' default set) where perf events are
# open to the process; elsewhere Not Run (exit 77) with the reason the profile gives.
add_test(NAME OPT_profiling_config_profiling_options_aic_metrics_3_hardware_counter_values
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_hardware_counters.py
                 --openge $<TARGET_FILE:openge>
                 --model ${PROJECT_SOURCE_DIR}/models/demo.onnx
                 --work ${OPENGE_PROFILING_CLI_DIR}/hardware_counters)
set_tests_properties(OPT_profiling_config_profiling_options_aic_metrics_3_hardware_counter_values PROPERTIES
                     TIMEOUT 300 LABELS profiling SKIP_RETURN_CODE 77)

# bench --profile leaves the warm-up out of the collection (Session::pause_profiling).
add_test(NAME profiling_bench_records_only_timed_runs
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_bench_profile.py
                 --openge $<TARGET_FILE:openge>
                 --work ${OPENGE_PROFILING_CLI_DIR}/bench_profile)
set_tests_properties(profiling_bench_records_only_timed_runs PROPERTIES TIMEOUT 600 LABELS profiling)
