// Which record id an operation on an existing key targets: YCSB's key choosers
// (CoreWorkload's `keychooser` and nextKeynum()), one per requestdistribution.
//
// `inserted` is the number of ids that exist when the operation is issued (the
// load's recordcount plus the stream's inserts so far); every choice is below
// it. Semantics, as Java YCSB's CoreWorkload builds them:
//   uniform        uniform over the loaded ids [0, recordcount); never an id a
//                  run inserted.
//   uniform-inserted  (pmemids' own, what `uniform` was before) uniform over
//                  every id inserted so far, the load's and the run's: the
//                  crash checker's default, so updates and deletes also meet
//                  keys inserted during the run.
//   sequential     0, 1, ..., recordcount - 1, 0, ...; never an inserted id.
//   hotspot        the first (int)(recordcount * hotspotdatafraction) loaded
//                  ids are hot: with probability hotspotopnfraction a uniform
//                  hot id, else a uniform cold one (a hot or cold set that is
//                  empty, where YCSB divides by zero, gives its draws to the other).
//   zipfian        ScrambledZipfianGenerator: a zipfian rank over 10^10 + 1
//                  items (zeta = YCSB's precomputed 26.46902820178302 for theta
//                  0.99, else computed), Utils.fnvhash64 of the rank modulo the
//                  keyspace recordcount + expected new keys + 1, redrawn while
//                  the id is not inserted yet.
//   zipfian-ycsbc  the C++ port YCSB-C: a zipfian rank over recordcount +
//                  expected new keys items (zeta computed over them), unsigned
//                  FNV-1a modulo that count, redrawn while not inserted yet.
//   latest         SkewedLatestGenerator: max - rank, max = inserted - 1, the
//                  rank from a zipfian built over recordcount - 1 items whose
//                  zeta grows with max (eta stays the construction's); so the
//                  newest id is the hottest and id 0 is never chosen.
// Expected new keys = (uint64)(operationcount * insertproportion * 2), YCSB's.
// zipfianconstant (default 0.99, YCSB's only value) applies to zipfian,
// zipfian-ycsbc and latest.
//
// Redraws are bounded: after kMaxRedraws (zipfian) or kMaxRedrawsYcsbc
// (zipfian-ycsbc, the bound pmemids always had) draws of ids not inserted yet,
// the last hash is folded onto the inserted ids (hash % inserted) and counted
// in folds(). YCSB would keep drawing; folds happen only when recordcount is
// tiny against the inserts expected, and a run warns when there were any.
#pragma once

#include <cstdint>
#include <memory>

#include "workload/generators.h"
#include "workload/properties.h"

namespace pmemids {

// Java YCSB's ScrambledZipfianGenerator constants.
inline constexpr uint64_t kYcsbZipfianItems = 10000000000ULL;  // ITEM_COUNT
inline constexpr double kYcsbZipfianConstant = 0.99;           // USED_ZIPFIAN_CONSTANT
inline constexpr double kYcsbZetan = 26.46902820178302;        // ZETAN

// The generator a distribution names, as recorded in config.request_generator.
const char* generator_name(Distribution d);

// Expected new keys: (uint64)(operationcount * insertproportion * 2).
uint64_t expected_new_keys(const WorkloadSpec& s);

class KeyChooser {
 public:
  static constexpr int kMaxRedraws = 1024;
  static constexpr int kMaxRedrawsYcsbc = 64;

  explicit KeyChooser(const WorkloadSpec& s);
  uint64_t next(Rng& rng, uint64_t inserted);
  uint64_t folds() const { return folds_; }
  // zipfian and zipfian-ycsbc: the ids the hash is taken modulo.
  uint64_t keyspace() const { return keyspace_; }

 private:
  uint64_t scrambled(Rng& rng, uint64_t inserted, uint64_t (*hash)(uint64_t), int max_redraws);

  Distribution dist_;
  uint64_t records_;  // recordcount
  double hot_opn_;    // hotspotopnfraction
  std::unique_ptr<Zipfian> zipf_;
  uint64_t keyspace_ = 0;
  uint64_t hot_ = 0;  // hotspot: hot ids
  uint64_t sequential_ = 0;
  uint64_t folds_ = 0;
};

}  // namespace pmemids
