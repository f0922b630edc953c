// Commands implemented by the Python package python/pmemids_report: the pmemids
// binary replaces itself with `<python> -m <module> ARGS...`, where <python> is
// $PMEMIDS_PYTHON, else the project venv's <source dir>/.venv/bin/python, and
// <source dir>/python is put first on PYTHONPATH so the package runs even when not
// pip-installed. PMEMIDS_BIN is set to this executable and PMEMIDS_SOURCE_DIR to the
// source tree, for modules that run pmemids or read the tree's files. The process
// image is replaced, so the module's exit code is pmemids's. A missing interpreter is
// a usage error (exit 2) naming `command` and pointing to scripts/setup.sh.
#pragma once

#include <string>
#include <vector>

namespace pmemids {

[[noreturn]] void forward_to_python(const std::string& command, const std::string& module,
                                    const std::vector<std::string>& args);

}  // namespace pmemids
