// Running one configuration as a child process of this binary:
//   /proc/self/exe <command> <args> --out <temp>     (command: run, or micro <bench>)
// stdout to /dev/null (the sweep's stdout stays clean), stderr captured. The
// child dies with the sweep (PR_SET_PDEATHSIG), so a killed sweep leaves no run
// behind. Exit 0 -> kOk; exit 2 -> kSkipped (the run refused this configuration
// here); anything else, including a signal -> kFailed. The reason is the run's
// last "pmemids: error:" line (prefix removed), else its last stderr line.
// SIGINT or SIGTERM to the sweep is passed to the running child and the outcome
// is kInterrupted.
//
// run_hook runs a shell command (/bin/sh -c, the --before-round command) to its
// end, stdout and stderr the sweep's, with `env` ("NAME=value") added to the
// environment; SIGINT and SIGTERM to the sweep are passed to it as to a run.
#pragma once

#include <string>
#include <vector>

#include "sweep/driver.h"

namespace pmemids::sweep {

// Installs the SIGINT/SIGTERM handlers (once, before running children).
void install_interrupt_handlers();
// Whether SIGINT or SIGTERM has arrived, and which (0: none).
bool interrupt_requested();
int interrupt_signal();

Outcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& args,
                  const std::string& temp);

// The command's exit code, 128 + the signal that ended it, or 127 when it
// could not start.
int run_hook(const std::string& command, const std::vector<std::string>& env);

// The reason to record from a run's stderr.
std::string reason_from_log(const std::string& log);

}  // namespace pmemids::sweep
