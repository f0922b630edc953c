// The (structure, mode) registry: the one place where a run's type is chosen.
// Each entry holds, per mode, a pointer to the fully templated run function;
// nothing below it is type-erased.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "run/runner.h"

namespace pmemids {

struct DsEntry {
  std::string_view name;
  std::string_view description;
  bool can_scan;
  std::array<uint64_t (*)(uint32_t), 4> element_bytes;  // indexed by Mode
  // The structure's own estimate of its bytes (elements, arrays, allocator
  // overhead) for these options: what the default pool size is derived from.
  std::array<uint64_t (*)(const DsOptions&), 4> structure_bytes;  // indexed by Mode
  std::array<RepResult (*)(const RunRequest&), 4> run;  // indexed by Mode
};

// The built-in structures, then those added by add_index, in that order.
// UsageError when two have the same name.
const std::vector<DsEntry>& registry();
// Adds a structure built in from outside (register_index, PMEMIDS_EXTRA_DS);
// only before registry() is first called, i.e. during static initialisation.
void add_index(DsEntry e);
// UsageError naming the accepted names when not found.
const DsEntry& find_ds(std::string_view name);
Mode find_mode(std::string_view name);

// Names of the structures that can scan, comma-separated (for messages).
std::string scanning_structures();

}  // namespace pmemids
