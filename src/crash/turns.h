// Cooperative turns for the multi-thread crash checker: N real threads of
// which exactly one runs at a time. A thread runs until it reaches a sync
// point (every backend primitive and spin-wait iteration of a concurrent
// structure, see backend/obj.h), where a seeded generator decides whether it
// keeps running or hands the turn to another thread that has not finished.
// The interleaving is therefore random at the granularity of sync points but
// reproducible from the seed, and whatever runs at a crash point runs alone:
// the shadow's bookkeeping needs no lock, and the image is taken while every
// other thread is parked at a sync point.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "workload/generators.h"

namespace pmemids {

class Turns {
 public:
  // `p`: probability of handing over at each sync point.
  Turns(int n, uint64_t seed, double p) : n_(n), p_(p), rng_(seed), finished_(n, false) {}

  // The calling thread is thread t: waits for its first turn (thread 0 has it).
  void begin(int t) {
    tl_thread = t;
    std::unique_lock g(mu_);
    cv_.wait(g, [&] { return current_ == t; });
  }
  // A sync point of the calling thread (no-op outside begin/end).
  void yield() {
    const int t = tl_thread;
    if (t < 0) return;
    std::unique_lock g(mu_);
    if (rng_.uniform01() >= p_) return;
    pass(t);
    cv_.wait(g, [&] { return current_ == t; });
  }
  // The calling thread is done: the turn goes to another.
  void end() {
    const int t = tl_thread;
    tl_thread = -1;
    std::unique_lock g(mu_);
    finished_[t] = true;
    pass(t);
  }

 private:
  // Hands the turn to a random unfinished thread (possibly t itself).
  void pass(int t) {
    std::vector<int> live;
    for (int u = 0; u < n_; ++u) {
      if (!finished_[u]) live.push_back(u);
    }
    current_ = live.empty() ? -1 : live[rng_.below(live.size())];
    if (current_ != t) cv_.notify_all();
  }

  static inline thread_local int tl_thread = -1;
  int n_;
  double p_;
  Rng rng_;
  std::vector<bool> finished_;
  int current_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace pmemids
