#include "workload/generators.h"

#include <cmath>

#include "util/fnv1a.h"

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
  uint64_t h = kFnv1aOffset;
  for (int i = 0; i < 8; ++i, x >>= 8) h = (h ^ (x & 0xff)) * kFnv1aPrime;
  return h;
}

uint64_t ycsb_fnvhash64(uint64_t x) {
  const uint64_t h = fnv1a64(x);
  return h >> 63 != 0 ? 0 - h : h;
}

double Zipfian::zeta(uint64_t from, uint64_t to, double theta, double initial) {
  double sum = initial;
  for (uint64_t i = from; i < to; ++i) sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
  return sum;
}

double Zipfian::zeta_fast(uint64_t n, double theta) {
  constexpr uint64_t kDirect = 1000;
  if (n <= kDirect) return zeta(0, n, theta, 0.0);
  // sum_{i=1}^{n} f(i) with f(x) = x^-theta is sum_{i=1}^{m-1} f(i) + integral_m^n f
  // + (f(m) + f(n)) / 2 + sum_{k=1..3} B_2k / (2k)! (f^(2k-1)(n) - f^(2k-1)(m)).
  const double m = static_cast<double>(kDirect), x = static_cast<double>(n), s = theta;
  const double head = zeta(0, kDirect - 1, s, 0.0);
  // integral_m^n v^-s dv = m^(1-s) expm1((1-s) ln(n/m)) / (1-s): no cancellation near s = 1.
  const double l = std::log(x / m);
  const double integral =
      s == 1.0 ? l : std::pow(m, 1.0 - s) * std::expm1((1.0 - s) * l) / (1.0 - s);
  const auto f = [s](double v) { return std::pow(v, -s); };
  // The odd derivatives: -s v^(-s-1), -s(s+1)(s+2) v^(-s-3), -s(s+1)(s+2)(s+3)(s+4) v^(-s-5).
  const auto d1 = [s](double v) { return -s * std::pow(v, -s - 1); };
  const auto d3 = [s](double v) { return -s * (s + 1) * (s + 2) * std::pow(v, -s - 3); };
  const auto d5 = [s](double v) {
    return -s * (s + 1) * (s + 2) * (s + 3) * (s + 4) * std::pow(v, -s - 5);
  };
  return head + integral + (f(m) + f(x)) / 2 + (d1(x) - d1(m)) / 12 - (d3(x) - d3(m)) / 720 +
         (d5(x) - d5(m)) / 30240;
}

Zipfian::Zipfian(uint64_t n, double theta) : Zipfian(n, theta, zeta(0, n, theta, 0.0)) {}

Zipfian::Zipfian(uint64_t n, double theta, double zetan)
    : items_(n),
      counted_(n),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2_(zeta(0, 2, theta, 0.0)),
      zetan_(zetan),
      eta_((1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta2_ / zetan)) {}

uint64_t Zipfian::next(Rng& rng, uint64_t n) {
  if (n > counted_) {
    zetan_ = zeta(counted_, n, theta_, zetan_);
    counted_ = n;
    eta_ =
        (1.0 - std::pow(2.0 / static_cast<double>(items_), 1.0 - theta_)) / (1.0 - zeta2_ / zetan_);
  }
  const double u = rng.uniform01();
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (n >= 2 && uz < 1.0 + std::pow(0.5, theta_)) return 1;
  const auto r =
      static_cast<uint64_t>(static_cast<double>(n) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return r < n ? r : n - 1;
}

}  // namespace pmemids
