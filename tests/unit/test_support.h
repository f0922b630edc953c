// Test helpers: a scratch pool directory under /dev/shm, and the (structure,
// backend) pair typed tests are instantiated over (the lists of pairs derive
// from the catalog: catalog_pairs.h).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "backend/obj.h"
#include "backend/plain.h"
#include "backend/pool.h"
#include "run/context.h"

namespace pmemids::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = "/dev/shm/pmemids-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
    probe_pool_dir(path_);  // sets PMEM_IS_PMEM_FORCE on tmpfs, as the CLI does
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

  PoolSpec spec(const std::string& ds, Mode m, bool reopen = false, bool keep = false,
                uint64_t bytes = 64 << 20) const {
    return PoolSpec{.dir = path_,
                    .ds = ds,
                    .mode = std::string(mode_name(m)),
                    .bytes = bytes,
                    .reopen = reopen,
                    .keep = keep};
  }

 private:
  std::string path_;
};

template <template <class> class DS_, class B_>
struct Pair {
  using B = B_;
  using DS = DS_<B_>;
  template <class Other>
  using With = DS_<Other>;  // the same structure over another backend
};

// A name as gtest takes it: '-' becomes '_'.
inline std::string test_name(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = c == '-' ? '_' : c;
  return out;
}

// Instantiation names: `<suite>/<ds>_<mode>` for pairs, `<suite>/<mode>` for
// backends.
struct PairName {
  template <class P>
  static std::string GetName(int) {
    return test_name(P::DS::kName) + "_" + test_name(mode_name(P::B::kMode));
  }
};
struct BackendName {
  template <class B>
  static std::string GetName(int) {
    return test_name(mode_name(B::kMode));
  }
};

}  // namespace pmemids::test
