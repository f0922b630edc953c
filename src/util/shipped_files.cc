#include "util/shipped_files.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "errors.h"
#include "util/file_checks.h"
#include "util/fnv1a.h"

namespace pmemids {
namespace fs = std::filesystem;
namespace {

struct KindNames {
  ShippedKind kind;
  const char* name;
  const char* dir;
};
constexpr KindNames kKinds[] = {{ShippedKind::kWorkload, "workload", "workloads"},
                                {ShippedKind::kSweep, "sweep", "sweeps"},
                                {ShippedKind::kClaim, "claim", "reproduce"},
                                {ShippedKind::kScript, "script", "scripts"}};

const KindNames& names_of(ShippedKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[0];
}

// The directory this binary is installed in or was built from (step 5).
fs::path share_or_source() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path share = self.parent_path().parent_path() / "share" / "pmemids";
    if (fs::is_directory(share, ec)) return share;
  }
  return PMEMIDS_SOURCE_DIR;
}

// The places `written` may be under `root`: root/written, and root/<kind dir>/written
// for a bare name.
std::vector<fs::path> under(const fs::path& root, const fs::path& written, ShippedKind kind) {
  std::vector<fs::path> out{root / written};
  if (!written.has_parent_path()) out.push_back(root / names_of(kind).dir / written);
  return out;
}

std::string hash_text(const std::string& text) {
  return fmt::format("fnv1a64:{:016x}", fnv1a64_bytes(text));
}

}  // namespace

const char* shipped_dir_name(ShippedKind kind) { return names_of(kind).dir; }
const char* shipped_kind_name(ShippedKind kind) { return names_of(kind).name; }

bool parse_shipped_kind(const std::string& name, ShippedKind& kind) {
  for (const auto& k : kKinds) {
    if (name == k.name) {
      kind = k.kind;
      return true;
    }
  }
  return false;
}

std::vector<std::string> shipped_roots() {
  std::vector<std::string> roots;
  if (const char* data = std::getenv("PMEMIDS_DATA"); data != nullptr) {
    const std::string all = data;
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      if (end > start) roots.push_back(all.substr(start, end - start));
      start = end + 1;
    }
  }
  roots.push_back(share_or_source().string());
  return roots;
}

std::string file_hash(const std::string& path, const std::string& what) {
  return hash_text(read_input_file(path, what));
}

ShippedFile locate_shipped(const std::string& written, ShippedKind kind,
                           const std::string& referrer) {
  const fs::path w(written);
  std::vector<fs::path> places;
  if (w.is_absolute()) {
    places.push_back(w);
  } else {
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    for (const auto& p : under(cwd, w, kind)) places.push_back(p);
    if (!referrer.empty()) {
      for (fs::path d = fs::absolute(referrer, ec).parent_path(); !d.empty(); d = d.parent_path()) {
        places.push_back(d / w);
        if (d == d.parent_path()) break;
      }
    }
    for (const auto& root : shipped_roots()) {
      for (const auto& p : under(fs::absolute(root, ec), w, kind)) places.push_back(p);
    }
  }
  ShippedFile found{written, "", ""};
  const std::string what = fmt::format("{} file", shipped_kind_name(kind));
  std::set<fs::path> seen;
  for (const fs::path& place : places) {
    const fs::path p = place.lexically_normal();
    std::error_code ec;
    if (!seen.insert(p).second || !fs::exists(p, ec)) continue;
    if (found.path.empty()) {
      found.path = p.string();
      // A directory (the claim files') has no hash; a file read_input_file refuses (a
      // FIFO, /proc/self/mem, too large) is refused here with its reason.
      if (fs::is_directory(p, ec)) return found;
      found.hash = file_hash(found.path, what);
      continue;
    }
    if (fs::is_directory(p, ec) || fs::equivalent(p, found.path, ec)) continue;
    std::string other;
    try {
      other = file_hash(p.string(), what);
    } catch (const UsageError&) {
      continue;  // not a file pmemids would read: it cannot be the one meant
    }
    if (other != found.hash) {
      fmt::print(stderr,
                 "pmemids: warning: {} '{}': using {} ({}); {} differs ({}) and is not used\n",
                 shipped_kind_name(kind), written, found.path, found.hash, p.string(), other);
    }
  }
  if (!found.path.empty()) return found;
  std::string searched;
  seen.clear();
  for (const fs::path& place : places) {
    if (seen.insert(place.lexically_normal()).second) {
      searched +=
          fmt::format("{}{}", searched.empty() ? "" : ", ", place.lexically_normal().string());
    }
  }
  throw UsageError(
      fmt::format("{} file '{}' cannot be read: No such file; searched: {} (set PMEMIDS_DATA to a "
                  "directory holding {}/ to add one)",
                  shipped_kind_name(kind), written, searched, shipped_dir_name(kind)));
}

}  // namespace pmemids
