// Random number and key-popularity generators (YCSB semantics).
//
// All generators draw from an explicit, seeded Rng so a stream is a pure function
// of (spec, seed). They run only while the operation stream is pre-generated,
// never inside a timed loop.
#pragma once

#include <cstdint>
#include <random>

#include "workload/mulhi.h"

namespace pmemids {

class Rng {
 public:
  explicit Rng(uint64_t seed) : eng_(seed) {}
  uint64_t next() { return eng_(); }
  double uniform01() { return static_cast<double>(eng_() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n) { return mulhi64(eng_(), n); }  // [0, n); bias < n / 2^64

 private:
  std::mt19937_64 eng_;
};

// A bijection on 64-bit integers (splitmix64's finaliser) and its inverse.
uint64_t mix64(uint64_t x);
uint64_t unmix64(uint64_t x);

// 64-bit FNV-1a of an integer's 8 bytes (YCSB's key scrambling hash).
uint64_t fnv1a64(uint64_t x);

// Zipfian ranks in [0, n): P(rank i) proportional to 1 / (i + 1)^theta, by Gray
// et al.'s rejection-free method. The item count may grow between draws (for
// `latest`); zeta(n) is then extended incrementally, as YCSB does.
class Zipfian {
 public:
  Zipfian(uint64_t n, double theta);
  uint64_t next(Rng& rng) { return next(rng, n_); }
  uint64_t next(Rng& rng, uint64_t n);
  uint64_t items() const { return n_; }

  static double zeta(uint64_t from, uint64_t to, double theta, double initial);

 private:
  void resize(uint64_t n);

  uint64_t n_;
  double theta_, alpha_, zeta2_, zetan_, eta_;
};

}  // namespace pmemids
