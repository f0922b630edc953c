// How record ids become keys: the workload's insert order (YCSB's
// insertorder) and the codec it selects, which DsOptions carries so that a
// structure addressing by id can invert it (workload/stream.h generates keys
// with it; the codec's functions are defined there).
#pragma once

#include <cstdint>

namespace pmemids {

enum class InsertOrder { kHashed, kOrdered };

const char* insert_order_name(InsertOrder o);

struct KeyCodec {
  InsertOrder order = InsertOrder::kHashed;
  uint64_t encode(uint64_t id) const;
  uint64_t decode(uint64_t key) const;
};

}  // namespace pmemids
