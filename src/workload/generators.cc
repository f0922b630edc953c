#include "workload/generators.h"

#include <cmath>

namespace pmemids {

uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

namespace {
uint64_t unxorshift(uint64_t x, unsigned s) {
  uint64_t r = x;
  for (unsigned i = s; i < 64; i += s) r = x ^ (r >> s);
  return r;
}
}  // namespace

uint64_t unmix64(uint64_t x) {
  x = unxorshift(x, 31);
  x *= 0x319642b2d24d8ec3ULL;  // inverse of 0x94d049bb133111eb mod 2^64
  x = unxorshift(x, 27);
  x *= 0x96de1b173f119089ULL;  // inverse of 0xbf58476d1ce4e5b9 mod 2^64
  x = unxorshift(x, 30);
  return x;
}

uint64_t fnv1a64(uint64_t x) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < 8; ++i) {
    h ^= x & 0xff;
    h *= 0x100000001b3ULL;
    x >>= 8;
  }
  return h;
}

double Zipfian::zeta(uint64_t from, uint64_t to, double theta, double initial) {
  double sum = initial;
  for (uint64_t i = from; i < to; ++i) sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
  return sum;
}

Zipfian::Zipfian(uint64_t n, double theta)
    : n_(n),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2_(zeta(0, 2, theta, 0.0)),
      zetan_(zeta(0, n, theta, 0.0)),
      eta_(0) {
  resize(n);
}

void Zipfian::resize(uint64_t n) {
  if (n > n_) zetan_ = zeta(n_, n, theta_, zetan_);
  n_ = n;
  eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta_)) / (1.0 - zeta2_ / zetan_);
}

uint64_t Zipfian::next(Rng& rng, uint64_t n) {
  if (n != n_) {
    if (n < n_) {  // shrinking is rare (never in YCSB's use); recompute from scratch
      n_ = 0;
      zetan_ = 0;
    }
    resize(n);
  }
  const double u = rng.uniform01();
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (n_ >= 2 && uz < 1.0 + std::pow(0.5, theta_)) return 1;
  const auto r =
      static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return r < n_ ? r : n_ - 1;
}

}  // namespace pmemids
