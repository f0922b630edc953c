#include "workload/key_chooser.h"

#include <algorithm>

namespace pmemids {

const char* generator_name(Distribution d) {
  switch (d) {
    case Distribution::kUniform:
      return "ycsb-uniform";
    case Distribution::kUniformInserted:
      return "pmemids-uniform-inserted";
    case Distribution::kZipfian:
      return "ycsb-scrambled-zipfian";
    case Distribution::kZipfianYcsbc:
      return "ycsbc-scrambled-zipfian";
    case Distribution::kLatest:
      return "ycsb-skewed-latest";
    case Distribution::kHotspot:
      return "ycsb-hotspot";
    case Distribution::kSequential:
      return "ycsb-sequential";
  }
  return "?";
}

uint64_t expected_new_keys(const WorkloadSpec& s) {
  return static_cast<uint64_t>(static_cast<double>(s.operationcount) * s.insertproportion * 2.0);
}

KeyChooser::KeyChooser(const WorkloadSpec& s)
    : dist_(s.requestdistribution), records_(s.recordcount), hot_opn_(s.hotspotopnfraction) {
  const double theta = s.zipfianconstant;
  switch (s.requestdistribution) {
    case Distribution::kZipfian: {
      keyspace_ = s.recordcount + expected_new_keys(s) + 1;
      const uint64_t ranks = kYcsbZipfianItems + 1;  // YCSB's ZipfianGenerator(0, ITEM_COUNT)
      zipf_ = std::make_unique<Zipfian>(
          ranks, theta,
          theta == kYcsbZipfianConstant ? kYcsbZetan : Zipfian::zeta_fast(ranks, theta));
      break;
    }
    case Distribution::kZipfianYcsbc:
      keyspace_ = s.recordcount + expected_new_keys(s);
      zipf_ = std::make_unique<Zipfian>(keyspace_, theta);
      break;
    case Distribution::kLatest:
      zipf_ = std::make_unique<Zipfian>(std::max<uint64_t>(s.recordcount - 1, 1), theta);
      break;
    case Distribution::kHotspot:
      hot_ = static_cast<uint64_t>(static_cast<double>(s.recordcount) * s.hotspotdatafraction);
      break;
    case Distribution::kUniform:
    case Distribution::kUniformInserted:
    case Distribution::kSequential:
      break;
  }
}

uint64_t KeyChooser::scrambled(Rng& rng, uint64_t inserted, uint64_t (*hash)(uint64_t),
                               int max_redraws) {
  for (int tries = 0;; ++tries) {
    const uint64_t h = hash(zipf_->next(rng));
    if (tries == max_redraws) {
      ++folds_;
      return h % inserted;
    }
    if (h % keyspace_ < inserted) return h % keyspace_;
  }
}

uint64_t KeyChooser::next(Rng& rng, uint64_t inserted) {
  switch (dist_) {
    case Distribution::kUniform:
      return rng.below(records_);
    case Distribution::kUniformInserted:
      return rng.below(inserted);
    case Distribution::kZipfian:
      return scrambled(rng, inserted, ycsb_fnvhash64, kMaxRedraws);
    case Distribution::kZipfianYcsbc:
      return scrambled(rng, inserted, fnv1a64, kMaxRedrawsYcsbc);
    case Distribution::kLatest: {
      const uint64_t max = inserted - 1;
      return max == 0 ? 0 : max - zipf_->next(rng, max);
    }
    case Distribution::kHotspot: {
      const bool hot = rng.uniform01() < hot_opn_;
      const uint64_t cold = records_ - hot_;
      if ((hot && hot_ > 0) || cold == 0) return rng.below(hot_);
      return hot_ + rng.below(cold);
    }
    case Distribution::kSequential:
      return sequential_++ % records_;
  }
  return 0;
}

}  // namespace pmemids
