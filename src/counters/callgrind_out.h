// callgrind's profile dumps (its "callgrind format") read for their totals, and
// the `sim_` metrics made of them.
//
// A dump names its events once ("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr
// DLmw Bc Bcm Bi Bim" with --cache-sim=yes --branch-sim=yes) and states the
// dump's total cost ("summary:", older files "totals:"). Metrics over `ops`
// operations, each null when an event it needs is missing from the dump:
//
//   sim_instructions_per_op           Ir
//   sim_data_reads_per_op             Dr
//   sim_data_writes_per_op            Dw
//   sim_i1_misses_per_op              I1mr
//   sim_d1_read_misses_per_op         D1mr  (= LL data reads: no L2 is modelled)
//   sim_d1_write_misses_per_op        D1mw
//   sim_ll_misses_per_op              DLmr  (as llc_misses_per_op: LL load misses)
//   sim_ll_write_misses_per_op        DLmw
//   sim_ll_instruction_misses_per_op  ILmr
//   sim_ll_miss_ratio                 DLmr / D1mr (as llc_miss_ratio: LL load misses / LL loads)
//   sim_d1_miss_ratio                 D1mr / Dr
//   sim_branches_per_op               Bc + Bi
//   sim_branch_misses_per_op          Bcm + Bim
//   sim_instructions                  Ir (total)
// and sim_events, every event's total by callgrind's name.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace pmemids {

using CallgrindTotals = std::map<std::string, uint64_t>;

// The totals of one dump; a RuntimeError naming `what` when it has no
// "events:" line or no total line whose count matches it.
CallgrindTotals parse_callgrind_totals(std::istream& in, const std::string& what);

void add_sim_metrics(nlohmann::json& metrics, const CallgrindTotals& t, uint64_t ops);

}  // namespace pmemids
