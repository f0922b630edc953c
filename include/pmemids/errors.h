// Error types that carry the process exit code the CLI must return.
//   UsageError   -> exit 2: bad flag, property, file, or a combination that cannot run.
//   RuntimeError -> exit 1: the run was valid but failed (pool full, PMDK failure).
// InvariantViolation is what structure checks and checked pointer walks throw:
// a structure or pool that is not what it must be (a crash image, a corrupt pool).
// Messages name the offending input and, where there is a fixed set, what is accepted.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace pmemids {

class Error : public std::runtime_error {
 public:
  Error(int exit_code, const std::string& msg) : std::runtime_error(msg), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& msg) : Error(2, msg) {}
};

class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& msg) : Error(1, msg) {}
};

class InvariantViolation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pmemids
