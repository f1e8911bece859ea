# The profiling HTML report in a real browser: headless Chromium (Debian `chromium`, installed by
# scripts/setup.sh) over its DevTools pipe. Fails on console errors, uncaught exceptions, failed or
# any network loads, and a page without its top-operators table and timeline bars; keeps a
# full-page screenshot in <build>/test_artifacts/profiling_report.png.
set(OPENGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx and numpy modules (tests)")

add_test(NAME profiling_report_loads_in_chromium
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_report_check.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/report_browser_work
                 --screenshot ${CMAKE_BINARY_DIR}/test_artifacts/profiling_report.png)
set_tests_properties(profiling_report_loads_in_chromium PROPERTIES TIMEOUT 180 LABELS "browser;profiling")

# The check must be able to fail: broken pages (exception, console.error/assert, remote image,
# missing file, empty table, no or misplaced timeline bars, squeezed bar charts, quirks mode; a
# comparison page without its first-deviating-op marker or with a point off its plot) must
# each be rejected for their own reason, and a clean page accepted.
add_test(NAME profiling_report_checker_catches_errors
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_report_in_chromium.py --self-test)
set_tests_properties(profiling_report_checker_catches_errors PROPERTIES TIMEOUT 300 LABELS "browser;profiling")

# `openge compare`'s page: two dumps of the demo model (float32, allow_mix_precision) compared
# through the CLI, the page beside the CSV checked in Chromium (--kind compare), and bad dump
# folders refused with one error and nothing written. Keeps <build>/test_artifacts/compare_report.png.
add_test(NAME compare_report_loads_in_chromium
         COMMAND ${OPENGE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_compare_check.py
                 --openge $<TARGET_FILE:openge>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/compare_browser_work
                 --screenshot ${CMAKE_BINARY_DIR}/test_artifacts/compare_report.png)
set_tests_properties(compare_report_loads_in_chromium PROPERTIES TIMEOUT 180 LABELS "browser;dump")
