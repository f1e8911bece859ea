// The openge subcommands; each returns the process exit code.
#pragma once

namespace openge::cli {

int cmd_run(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_options(int argc, char** argv);  // tools/cmd_options.cpp
int cmd_paths(int argc, char** argv);
int cmd_check_options(int argc, char** argv);
int cmd_profile_report(int argc, char** argv);     // tools/cmd_profile_report.cpp
int cmd_ops(int argc, char** argv);                // tools/cmd_ops.cpp
int cmd_explain_precision(int argc, char** argv);  // tools/cmd_explain_precision.cpp
int cmd_check(int argc, char** argv);              // tools/cmd_check.cpp
int cmd_dump(int argc, char** argv);               // tools/cmd_dump.cpp
int cmd_compare(int argc, char** argv);            // tools/cmd_compare.cpp
int cmd_compile(int argc, char** argv);            // tools/cmd_compile.cpp
int cmd_train(int argc, char** argv);              // tools/cmd_train.cpp
int cmd_atc(int argc, char** argv);                // tools/cmd_atc.cpp
int cmd_msprof(int argc, char** argv);             // tools/cmd_msprof.cpp

}  // namespace openge::cli
