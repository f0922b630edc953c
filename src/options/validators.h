// CLI11 checks every command's options share, so that one kind of value is
// refused the same way everywhere (exit 2, the message names the option):
//
//   finite_range(lo, hi)  a number in [lo, hi]; NaN, infinities, "" and trailing
//                         garbage are refused (CLI11's Range lets NaN through,
//                         and a NaN cast to an integer is undefined behaviour)
//   non_empty()           "" refused: an empty value would silently mean the default
//   seed_value()          the one seed rule (see parse_seed in workload/properties.h)
//   node_number()         a NUMA node number (the message names 0..N-1; whether the
//                         node exists is checked when the run is planned)
//   count_value()         a whole number in [0, 2^64 - 1], decimal digits only
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace pmemids {

CLI::Validator finite_range(double lo, double hi);
CLI::Validator non_empty();
CLI::Validator seed_value();
CLI::Validator node_number();
CLI::Validator count_value();

}  // namespace pmemids
