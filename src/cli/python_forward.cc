#include "cli/python_forward.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "errors.h"

namespace pmemids {
namespace {

constexpr const char* kSourceDir = PMEMIDS_SOURCE_DIR;

std::string interpreter() {
  const char* env = std::getenv("PMEMIDS_PYTHON");
  if (env != nullptr && *env != '\0') return env;
  return std::string(kSourceDir) + "/.venv/bin/python";
}

}  // namespace

void forward_to_python(const std::string& command, const std::string& module,
                       const std::vector<std::string>& args) {
  const std::string python = interpreter();
  if (access(python.c_str(), X_OK) != 0) {
    throw UsageError(fmt::format(
        "{}: Python interpreter '{}' not found or not executable; run scripts/setup.sh "
        "to create the project venv, or set PMEMIDS_PYTHON to a Python with pandas, matplotlib "
        "and jinja2",
        command, python));
  }
  std::string path = std::string(kSourceDir) + "/python";
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    path += ':';
    path += old;
  }
  setenv("PYTHONPATH", path.c_str(), 1);
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) setenv("PMEMIDS_BIN", self.c_str(), 1);
  setenv("PMEMIDS_SOURCE_DIR", kSourceDir, 1);

  std::vector<std::string> argv_s = {python, "-m", module};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execv(python.c_str(), argv.data());
  throw RuntimeError(fmt::format("{}: cannot run '{}': {}", command, python, std::strerror(errno)));
}

}  // namespace pmemids
