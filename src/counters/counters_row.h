// The line `pmemids run --counters ...` prints under each repetition's table
// row: the counters a reader compares first, "n/a" where not counted.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>

namespace pmemids {

void print_counters_row(std::FILE* out, const nlohmann::json& record);

}  // namespace pmemids
