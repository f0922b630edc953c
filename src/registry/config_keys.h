// The keys a run record's config carries (issue 27): the workload properties
// of its operation set (property_applies, workload/properties.h) and the
// knobs of the structure that ran (its descriptor's kKnobs, DsEntry::knobs);
// every other key (ds, mode, threads, domain, ...) belongs to all. A run
// writes exactly those (WorkloadSpec::to_json, knobs_config); records of older
// versions carried every set's properties and every structure's knobs (the
// changelog of docs/design.md lists those dropped), which readers drop here.
#pragma once

#include <nlohmann/json.hpp>

namespace pmemids {

// Erases from a record's `config` the workload properties of other operation
// sets ("operationset"; kv for records written before there were others) and
// the knobs of other structures ("ds"). A structure this binary does not
// list keeps every knob: nothing says which were its own.
void keep_record_keys(nlohmann::json& config);

}  // namespace pmemids
