// Which operation sets the keys of a run record's config belong to: the
// workload properties of some sets only (property_applies,
// workload/properties.h) and the knobs of the structures that implement a set
// (--load-factor, --node-keys, --max-height: kv; the combining stacks' --wait,
// --combiner-yield, --persist-requests, --elimination, --recycle,
// --combining-rounds: stack). Every other key (ds, mode, threads, domain, ...)
// belongs to all. A record carries the keys of its own set only (the
// changelog of docs/design.md lists those dropped).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "workload/op_set.h"

namespace pmemids {

bool config_key_applies(std::string_view key, OpSet set);

// Erases from `config` the keys that do not apply to operation set `set`.
void keep_keys_of(OpSet set, nlohmann::json& config);

// The operation set a record's config names ("operationset"; kv for records
// written before there were others).
OpSet config_op_set(const nlohmann::json& config);

}  // namespace pmemids
