# The installed C++ package (cmake --install, find_package(OpenGE)) builds and runs examples/cpp.
add_test(NAME InstalledPackage_ExampleBuildsWithFindPackageAndRuns
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_installed_package.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/installed_package)
set_tests_properties(InstalledPackage_ExampleBuildsWithFindPackageAndRuns PROPERTIES TIMEOUT 600 LABELS install)
