// The backend concept a structure is written against (src/backend/backend.h
// documents every call): the persistence modes, and what each backend provides.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace pmemids {

// A range of bytes in persistent memory (the user bytes of an object, or the
// part of one an operation changes).
struct ByteRange {
  const void* p;
  size_t n;
};

// The persistence modes. Their names, durability and backends are listed once,
// in pmemids' backend list (src/backend/backends.h), in this order.
enum class Mode : uint8_t { kDram, kVolatile, kPersist, kTrans };

// The --mode name of m ("dram", "pmem-volatile", ...): the backend list's.
std::string_view mode_name(Mode m);

template <class B>
concept Backend = requires(B& b, void* p, const void* cp, size_t n, uint64_t& w) {
  { B::kMode } -> std::convertible_to<Mode>;
  { B::kDurable } -> std::convertible_to<bool>;
  { b.template alloc<int>(n, 1u) } -> std::same_as<typename B::template Ptr<int>>;
  { b.template zalloc<int>(n, 1u) } -> std::same_as<typename B::template Ptr<int>>;
  b.free(typename B::template Ptr<int>{});
  { b.created() } -> std::convertible_to<bool>;
  { b.pool_bytes() } -> std::convertible_to<uint64_t>;
  b.write(p, cp, n);
  b.write_value(p, cp, n);
  b.move(p, cp, n);
  b.store_word(w, uint64_t{0});
  b.will_change({ByteRange{cp, n}, ByteRange{cp, n}});
  b.seal(cp, n);
  b.seal_value(cp, n);
  b.tx([] {});
  b.batch([] {});
  b.flush(cp, n);
  b.drain();
  b.persist(cp, n);
};

// A durable backend whose allocations are not failure-atomic with the stores
// that publish or unlink them (pmem-persist): a crash can leave objects
// allocated but unreachable, and recovery frees them with free_unreachable
// (repair_leaks, pmemids/structure.h). A leak left after that repair is a
// crash-consistency violation; under a durable backend without it (pmem-trans:
// allocation inside the transaction) any leak is.
template <class B>
concept RepairsLeaks = requires(B& b) {
  b.free_unreachable([](auto&&) {});
};

}  // namespace pmemids
