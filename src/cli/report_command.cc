// `pmemids report`: figures, tables and an HTML page from result files.
// Every argument goes unparsed to the Python package pmemids_report (python/):
// `<python> -m pmemids_report ARGS...`, where <python> is $PMEMIDS_PYTHON, else
// the project venv's <source dir>/.venv/bin/python, and <source dir>/python is
// put first on PYTHONPATH so the package runs even when not pip-installed, and
// $PMEMIDS_BIN is set to this binary (unless set) so the report reads the
// structure list from `pmemids list --json`. The process image is replaced, so the report's exit code (0, or 2 for bad input or
// arguments) is pmemids's. A missing interpreter is a usage error (exit 2) that
// points to scripts/setup.sh.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "errors.h"

namespace pmemids {
namespace {

constexpr const char* kSourceDir = PMEMIDS_SOURCE_DIR;

std::string interpreter() {
  const char* env = std::getenv("PMEMIDS_PYTHON");
  if (env != nullptr && *env != '\0') return env;
  return std::string(kSourceDir) + "/.venv/bin/python";
}

[[noreturn]] void forward(const std::vector<std::string>& args) {
  const std::string python = interpreter();
  if (access(python.c_str(), X_OK) != 0) {
    throw UsageError(fmt::format(
        "report: Python interpreter '{}' not found or not executable; run scripts/setup.sh "
        "to create the project venv, or set PMEMIDS_PYTHON to a Python with pandas, matplotlib "
        "and jinja2",
        python));
  }
  std::string path = std::string(kSourceDir) + "/python";
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    path += ":" + std::string(old);
  }
  setenv("PYTHONPATH", path.c_str(), 1);
  if (const char* bin = std::getenv("PMEMIDS_BIN"); bin == nullptr || *bin == '\0') {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = '\0';
      setenv("PMEMIDS_BIN", self, 1);
    }
  }

  std::vector<std::string> argv_s = {python, "-m", "pmemids_report"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execv(python.c_str(), argv.data());
  throw RuntimeError(fmt::format("report: cannot run '{}': {}", python, std::strerror(errno)));
}

}  // namespace

void add_report_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "report", "Figures, tables and index.html from result files (pmemids report --help)");
  sub->prefix_command();  // everything after `report` is the Python report's
  sub->set_help_flag();   // so is --help
  sub->callback([sub] { forward(sub->remaining()); });
}

}  // namespace pmemids
