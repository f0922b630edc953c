// The timed loop: walks a pre-generated operation range against one structure.
// Nothing here allocates, locks, reads a clock or builds a string; per operation
// it costs one switch and two increments of a caller-owned tally.
//
// "found" means: read/update/scan/read-modify-write/delete hit an existing key;
// insert found the key already present (and updated it).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "workload/stream.h"

namespace pmemids {

struct OpTally {
  std::array<uint64_t, kOpTypes> count{};
  std::array<uint64_t, kOpTypes> found{};

  uint64_t total() const {
    uint64_t n = 0;
    for (uint64_t c : count) n += c;
    return n;
  }
};

// `buf` must hold maxscanlength * value_size bytes: a scan copies every value it
// visits, as a YCSB scan returns every record.
template <class DS>
void execute(DS& ds, const Op* begin, const Op* end, char* buf, uint32_t value_size,
             OpTally& tally) {
  for (const Op* op = begin; op != end; ++op) {
    bool found = false;
    switch (op->type) {
      case OpType::kRead:
        found = ds.read(op->key, buf);
        break;
      case OpType::kUpdate:
        found = ds.update(op->key, op->value);
        break;
      case OpType::kInsert:
        found = !ds.insert(op->key, op->value);
        break;
      case OpType::kScan:
        if constexpr (DS::kCanScan) {
          char* dst = buf;
          found = ds.scan(op->key, op->scan_len, [&](uint64_t, const char* v) {
            std::memcpy(dst, v, value_size);
            dst += value_size;
          }) > 0;
        }
        break;
      case OpType::kReadModifyWrite:
        found = ds.read(op->key, buf) && ds.update(op->key, op->value);
        break;
      case OpType::kDelete:
        found = ds.remove(op->key);
        break;
    }
    const auto t = static_cast<size_t>(op->type);
    ++tally.count[t];
    tally.found[t] += found;
  }
}

}  // namespace pmemids
