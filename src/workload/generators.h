// Random number and key-popularity generators (YCSB semantics).
//
// All generators draw from an explicit, seeded Rng so a stream is a pure function
// of (spec, seed). They run only while the operation stream is pre-generated,
// never inside a timed loop.
#pragma once

#include <cstdint>
#include <random>

#include "pmemids/mulhi.h"

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

// 64-bit FNV-1a of an integer's 8 bytes, least significant first (the C++
// port YCSB-C's FNVHash64).
uint64_t fnv1a64(uint64_t x);

// Java YCSB's Utils.fnvhash64: the same hash read as a signed 64-bit integer,
// made non-negative (Math.abs). For the one hash value 2^63, where Java's
// Math.abs stays negative, this returns 2^63.
uint64_t ycsb_fnvhash64(uint64_t x);

// Zipfian ranks in [0, n): P(rank i) proportional to 1 / (i + 1)^theta, by Gray
// et al.'s rejection-free method, as Java YCSB's ZipfianGenerator draws them
// (ranks 0 and 1 exactly, the rest by the closed form). The item count may grow
// between draws (`latest`): zeta(n) is then extended incrementally, while eta
// keeps the item count given at construction, as YCSB's nextLong(itemcount)
// does. A smaller count than the one zeta covers reuses zeta unchanged, as
// YCSB does by default.
class Zipfian {
 public:
  Zipfian(uint64_t n, double theta);
  // With a precomputed zeta(n) (YCSB's ZETAN for 10^10 items at theta 0.99).
  Zipfian(uint64_t n, double theta, double zetan);
  uint64_t next(Rng& rng) { return next(rng, items_); }
  uint64_t next(Rng& rng, uint64_t n);
  uint64_t items() const { return items_; }
  double zetan() const { return zetan_; }

  // sum_{i = from}^{to - 1} 1 / (i + 1)^theta + initial, term by term.
  static double zeta(uint64_t from, uint64_t to, double theta, double initial);
  // zeta(0, n, theta, 0) by Euler-Maclaurin summation (the first 1,000 terms
  // directly, the rest as an integral with three Bernoulli corrections):
  // relative error below 1e-12, in microseconds for any n.
  static double zeta_fast(uint64_t n, double theta);

 private:
  uint64_t items_, counted_;  // items at construction; items zetan_ covers
  double theta_, alpha_, zeta2_, zetan_, eta_;
};

}  // namespace pmemids
