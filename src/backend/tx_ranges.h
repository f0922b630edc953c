// The byte ranges a running libpmemobj transaction has already made
// recoverable: logged (pmemobj_tx_add_range_direct) or allocated by it (an
// abort frees the object, and its commit writes it back). A change inside one
// needs no log entry of its own, so the durable backends log each range once
// per transaction however many writes fall in it.
//
// One set per thread (a transaction belongs to one thread), emptied when an
// outermost transaction begins. The ranges are kept disjoint and
// non-adjacent: an added range absorbs every range it overlaps or touches.
// A transaction changes a handful of objects, so a linear scan of a small
// vector is the cheapest lookup; the vector keeps its capacity across
// transactions, so the timed loop does not allocate once warm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmemids {

class TxRanges {
 public:
  void clear() { ranges_.clear(); }
  // Whether [p, p + n) lies inside one range of the set (n == 0: always).
  bool covers(const void* p, size_t n) const {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + n;
    for (const Range& r : ranges_) {
      if (r.lo <= lo && hi <= r.hi) return true;
    }
    return n == 0;
  }
  // Adds [p, p + n), merged with every range it overlaps or touches (the hull
  // of two touching intervals is their union, so one pass finds them all).
  void add(const void* p, size_t n) {
    Range m{reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + n};
    for (size_t i = 0; i < ranges_.size();) {
      const Range r = ranges_[i];
      if (r.lo <= m.hi && m.lo <= r.hi) {
        m.lo = r.lo < m.lo ? r.lo : m.lo;
        m.hi = r.hi > m.hi ? r.hi : m.hi;
        ranges_[i] = ranges_.back();
        ranges_.pop_back();
      } else {
        ++i;
      }
    }
    ranges_.push_back(m);
  }
  size_t size() const { return ranges_.size(); }

 private:
  struct Range {
    uintptr_t lo, hi;
  };
  std::vector<Range> ranges_;
};

inline thread_local TxRanges tl_tx_ranges;

}  // namespace pmemids
