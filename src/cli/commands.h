// Sub-commands of the pmemids binary. Each registers its options on the CLI11 app
// and runs through a callback; errors are thrown as pmemids::Error and mapped to
// exit codes in main().
#pragma once

#include <CLI/CLI.hpp>

namespace pmemids {

void add_run_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_crash_command(CLI::App& app);
void add_micro_command(CLI::App& app);
void add_doctor_command(CLI::App& app);
void add_reproduce_command(CLI::App& app);
void add_stream_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_locate_command(CLI::App& app);
// Reads every command registered before it: add it last.
void add_completion_command(CLI::App& app);

}  // namespace pmemids
