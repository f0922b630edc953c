#include "util/stop_signals.h"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cstring>

namespace pmemids {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

void on_stop_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

int stop_signal() { return g_signal.load(std::memory_order_relaxed); }

Interrupted::Interrupted(int sig)
    : Error(128 + sig, fmt::format("interrupted by {} ({}); the files this run created were "
                                   "removed and no record of the unfinished repetition was written",
                                   sig == SIGINT    ? "SIGINT"
                                   : sig == SIGTERM ? "SIGTERM"
                                                    : "a signal",
                                   strsignal(sig))) {}

void throw_if_stopped() {
  if (const int sig = stop_signal(); sig != 0) throw Interrupted(sig);
}

}  // namespace pmemids
