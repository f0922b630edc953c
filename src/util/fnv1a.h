// FNV-1a, 64 bits: the hash of config ids (sweep/expand.cc), of shipped files'
// contents (util/shipped_files.cc), of a round's order (sweep/rounds.cc) and of
// YCSB's key scrambling (workload/generators.cc). Not for security: for names
// that must be stable across runs, machines and builds.
#pragma once

#include <cstdint>
#include <string_view>

namespace pmemids {

inline constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ULL;

// The hash `h` continued over the bytes of `bytes` (from the offset basis: the
// FNV-1a of `bytes` alone).
constexpr uint64_t fnv1a64_bytes(std::string_view bytes, uint64_t h = kFnv1aOffset) {
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * kFnv1aPrime;
  return h;
}

}  // namespace pmemids
