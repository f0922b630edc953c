#include "compare/compare.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "errors.h"
#include "registry/config_keys.h"
#include "stats/summary.h"
#include "util/file_checks.h"

namespace pmemids {

const std::set<std::string> kNotIdentity = {
    "seed",     "stream_seeds", "repetition", "repeat",         "warmup",
    "pool_dir", "pool_size",    "keep_pool",  "workload_files", "ignored_properties"};
const std::map<std::string, std::string> kDerivedKeys = {{"flush_auto", "flush"},
                                                         {"flush_instruction", "flush"}};
const std::map<std::string, std::string> kGrownKeys = {{"ops_per_thread", "ops_per_thread_asked"}};

namespace {

constexpr uint64_t kMaxFileBytes = uint64_t{1} << 30;
constexpr const char* kPerOp = "_per_op";

bool flag(const nlohmann::json& rec, const char* name) {
  const auto it = rec.find(name);
  return it != rec.end() && it->is_boolean() && it->get<bool>();
}

double median_of(std::vector<double> xs) {
  return xs.empty() ? std::numeric_limits<double>::quiet_NaN() : summarize(xs).median;
}

std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

struct Group {
  nlohmann::json identity;
  std::vector<const RunRecord*> runs;
};

// Groups of records by identity, in order of first appearance.
std::vector<Group> group(const RecordFile& f, const std::set<std::string>& keys) {
  std::vector<Group> out;
  std::map<std::string, size_t> index;
  for (const RunRecord& r : f.runs) {
    nlohmann::json id = nlohmann::json::object();
    for (const auto& k : keys) id[k] = r.config.contains(k) ? r.config[k] : nlohmann::json();
    for (const auto& [grown, asked] : kGrownKeys) {
      if (id.contains(grown) && r.config.contains(asked)) id[grown] = r.config[asked];
    }
    const auto [it, fresh] = index.emplace(id.dump(), out.size());
    if (fresh) out.push_back({id, {}});
    out[it->second].runs.push_back(&r);
  }
  return out;
}

std::set<std::string> config_keys(const RecordFile& f, const std::set<std::string>& ignore) {
  std::set<std::string> keys;
  for (const RunRecord& r : f.runs) {
    for (const auto& [k, v] : r.config.items()) {
      if (kNotIdentity.count(k) == 0 && ignore.count(k) == 0) keys.insert(k);
    }
  }
  return keys;
}

Side side(const std::vector<const RunRecord*>& runs, const std::set<std::string>& costs) {
  Side s;
  for (const RunRecord* r : runs) s.ops_per_sec.push_back(r->metrics["ops_per_sec"].get<double>());
  s.median = median_of(s.ops_per_sec);
  s.costs = nlohmann::json::object();
  for (const auto& k : costs) {
    std::vector<double> xs;
    for (const RunRecord* r : runs) {
      const auto it = r->metrics.find(k);
      if (it != r->metrics.end() && it->is_number()) xs.push_back(it->get<double>());
    }
    s.costs[k] = xs.empty() ? nlohmann::json() : nlohmann::json(median_of(xs));
  }
  return s;
}

std::set<std::string> cost_keys(const std::vector<const RunRecord*>& a,
                                const std::vector<const RunRecord*>& b) {
  std::set<std::string> keys;
  for (const auto* runs : {&a, &b}) {
    for (const RunRecord* r : *runs) {
      for (const auto& [k, v] : r->metrics.items()) {
        if (k.size() > std::strlen(kPerOp) && k.ends_with(kPerOp)) keys.insert(k);
      }
    }
  }
  return keys;
}

// ds, mode and workload, then key=value for every other key whose value is not
// the same in all configurations.
std::string label(const nlohmann::json& id, const std::set<std::string>& varying) {
  std::string out;
  const auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  for (const char* k : {"ds", "mode", "workload"}) {
    if (id.contains(k) && !id[k].is_null()) add(value_text(id[k]));
  }
  for (const auto& k : varying) {
    if (k != "ds" && k != "mode" && k != "workload") add(k + "=" + value_text(id[k]));
  }
  return out.empty() ? "(one configuration)" : out;
}

// The unit of a throughput column: the largest value's (Mops/s from 1e6 ops/s).
std::pair<double, const char*> ops_unit(const std::vector<double>& column) {
  double top = 0;
  for (double v : column) {
    if (!std::isnan(v)) top = std::max(top, std::abs(v));
  }
  if (top >= 1e6) return {1e6, "Mops/s"};
  if (top >= 1e3) return {1e3, "Kops/s"};
  return {1, "ops/s"};
}

std::string in_unit(double v, double unit) {
  return std::isnan(v) ? "n/a" : fmt::format("{:.3f}", v / unit);
}

std::string cost_text(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : "n/a";
}

std::string too_few_note(const Row& r, double alpha) {
  return fmt::format(
      "too few repetitions for alpha {}: need at least 4 per side ({} vs {} can reach p = {:.3g} "
      "at best)",
      alpha, r.base.ops_per_sec.size(), r.fresh.ops_per_sec.size(), r.min_p);
}

// One line per configuration and cost observed on at least one side (median per
// operation); a cost observed on neither side of any configuration is named once.
std::string costs_text(const Comparison& c, size_t w) {
  std::set<std::string> seen, all;
  for (const Row& r : c.rows) {
    for (const auto& [k, v] : r.base.costs.items()) {
      all.insert(k);
      if (v.is_number() || r.fresh.costs[k].is_number()) seen.insert(k);
    }
  }
  std::string out;
  if (!seen.empty()) {
    size_t cw = std::string_view("cost").size();
    for (const auto& k : seen) cw = std::max(cw, k.size() - std::strlen(kPerOp));
    out += "per-op costs, median over the repetitions of each side:\n";
    out += fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}\n", "configuration", w, "cost", cw,
                       "base", "new", "new/base");
    for (const Row& r : c.rows) {
      for (const auto& k : seen) {
        const nlohmann::json &b = r.base.costs[k], &n = r.fresh.costs[k];
        if (!b.is_number() && !n.is_number()) continue;
        const bool ratio = b.is_number() && n.is_number() && b.get<double>() > 0;
        out +=
            fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}\n", r.label, w,
                        k.substr(0, k.size() - std::strlen(kPerOp)), cw, cost_text(b), cost_text(n),
                        ratio ? fmt::format("{:.3f}", n.get<double>() / b.get<double>()) : "n/a");
      }
    }
  }
  std::vector<std::string> unseen;
  for (const auto& k : all) {
    if (seen.count(k) == 0) unseen.push_back(k);
  }
  if (!unseen.empty()) {
    out += fmt::format("per-op costs not observed on either side: {}\n", fmt::join(unseen, ", "));
  }
  return out;
}

// "flush; flush_auto, flush_instruction (derived from flush)"
std::string ignored_text(const Comparison& c) {
  std::vector<std::string> asked;
  std::map<std::string, std::vector<std::string>> derived;
  for (const auto& k : c.ignored) {
    const auto it = kDerivedKeys.find(k);
    if (it != kDerivedKeys.end() && c.ignored.count(it->second) != 0) {
      derived[it->second].push_back(k);
    } else {
      asked.push_back(k);
    }
  }
  std::string out = fmt::format("{}", fmt::join(asked, ", "));
  for (const auto& [chosen, ks] : derived) {
    out += fmt::format("; {} (derived from {})", fmt::join(ks, ", "), chosen);
  }
  return out;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kSame:
      return "same";
    case Verdict::kTooFew:
      return "too few repetitions";
  }
  return "?";
}

RecordFile read_record_file(const std::string& path) {
  RecordFile f{.path = path};
  const std::string text = read_input_file(path, "result file", kMaxFileBytes);
  std::string_view rest = text;
  for (size_t lineno = 1; !rest.empty(); ++lineno) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto fail = [&](const std::string& what, const std::string& expected) {
      throw UsageError(fmt::format("{}:{}: {}; expected {}", path, lineno, what, expected));
    };
    const nlohmann::json rec = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (rec.is_discarded()) {
      fail("not JSON", "one JSON result record a line, as pmemids run and sweep write them");
    }
    if (!rec.is_object() || !rec.contains("config") || !rec["config"].is_object() ||
        !rec.contains("metrics") || !rec["metrics"].is_object()) {
      if (flag(rec, "skipped")) {
        ++f.not_repetitions;
        continue;
      }
      fail("not a pmemids result record",
           "an object with \"config\" and \"metrics\" objects, as pmemids run writes");
    }
    if (rec.contains("schema_version") && rec["schema_version"] != 1) {
      fail(fmt::format("schema_version {}", rec["schema_version"].dump()), "schema_version 1");
    }
    if (flag(rec, "warmup") || flag(rec, "aggregate") || flag(rec, "skipped")) {
      ++f.not_repetitions;
      continue;
    }
    const auto& ops =
        rec["metrics"].contains("ops_per_sec") ? rec["metrics"]["ops_per_sec"] : nlohmann::json();
    if (!ops.is_number() || ops.get<double>() < 0 || !std::isfinite(ops.get<double>())) {
      fail(fmt::format("metrics.ops_per_sec is {}", ops.dump()), "a number >= 0");
    }
    nlohmann::json config = rec["config"];
    // A run record of another version may carry keys of other operation sets
    // and knobs of other structures.
    if (config.contains("ds")) keep_record_keys(config);
    f.runs.push_back({lineno, std::move(config), rec["metrics"]});
  }
  if (f.runs.empty()) {
    throw UsageError(fmt::format(
        "{}: no run records ({} warm-up, aggregate or skipped); expected at least one measured "
        "repetition",
        path, f.not_repetitions));
  }
  return f;
}

Comparison compare(const RecordFile& base, const RecordFile& fresh, double alpha,
                   const std::set<std::string>& ignore_asked) {
  Comparison c;
  c.alpha = alpha;
  c.ignored = ignore_asked;
  for (const auto& [derived, chosen] : kDerivedKeys) {
    if (ignore_asked.count(chosen) != 0) c.ignored.insert(derived);
  }
  const std::set<std::string>& ignore = c.ignored;
  const std::set<std::string> kb = config_keys(base, ignore), kn = config_keys(fresh, ignore);
  std::set<std::string> common;
  for (const auto& k : kb) {
    if (kn.count(k) != 0) {
      common.insert(k);
    } else {
      c.keys_only_base.push_back(k);
    }
  }
  for (const auto& k : kn) {
    if (kb.count(k) == 0) c.keys_only_new.push_back(k);
  }
  const std::vector<Group> gb = group(base, common), gn = group(fresh, common);

  std::set<std::string> varying;
  for (const auto& k : common) {
    std::set<std::string> values;
    for (const auto* gs : {&gb, &gn}) {
      for (const Group& g : *gs) values.insert(g.identity[k].dump());
    }
    if (values.size() > 1) varying.insert(k);
  }
  std::map<std::string, const Group*> in_new;
  for (const Group& g : gn) in_new[g.identity.dump()] = &g;
  std::set<std::string> matched;
  for (const Group& g : gb) {
    const auto it = in_new.find(g.identity.dump());
    if (it == in_new.end()) {
      c.only_base.push_back(label(g.identity, varying));
      continue;
    }
    matched.insert(it->first);
    Row r;
    r.config = g.identity;
    r.label = label(g.identity, varying);
    const std::set<std::string> costs = cost_keys(g.runs, it->second->runs);
    r.base = side(g.runs, costs);
    r.fresh = side(it->second->runs, costs);
    r.ratio = r.base.median > 0 ? r.fresh.median / r.base.median
                                : std::numeric_limits<double>::quiet_NaN();
    r.test = mann_whitney(r.base.ops_per_sec, r.fresh.ops_per_sec);
    r.min_p = mann_whitney_min_p(r.base.ops_per_sec.size(), r.fresh.ops_per_sec.size());
    if (r.min_p >= alpha) {
      r.verdict = Verdict::kTooFew;
    } else if (r.test.p < alpha) {
      const double half = static_cast<double>(r.base.ops_per_sec.size()) *
                          static_cast<double>(r.fresh.ops_per_sec.size()) / 2;
      const bool up =
          r.fresh.median != r.base.median ? r.fresh.median > r.base.median : r.test.u > half;
      r.verdict = up ? Verdict::kFaster : Verdict::kSlower;
    } else {
      r.verdict = Verdict::kSame;
    }
    c.rows.push_back(std::move(r));
  }
  for (const Group& g : gn) {
    if (matched.count(g.identity.dump()) == 0) c.only_new.push_back(label(g.identity, varying));
  }
  return c;
}

std::vector<const Row*> regressions(const Comparison& c, double pct) {
  std::vector<const Row*> out;
  for (const Row& r : c.rows) {
    if (r.verdict == Verdict::kSlower && r.ratio < 1 - pct / 100) out.push_back(&r);
  }
  return out;
}

std::string nothing_compared(const Comparison& c) {
  const auto list = [](const std::vector<std::string>& ls) {
    return ls.empty() ? std::string("none") : fmt::format("{}", fmt::join(ls, "; "));
  };
  if (c.rows.empty()) {
    return fmt::format(
        "no configuration is in both files (only in BASE: {}; only in NEW: {}); expected files "
        "with configurations in common (--ignore KEY matches across a key that differs)",
        list(c.only_base), list(c.only_new));
  }
  for (const Row& r : c.rows) {
    if (r.verdict != Verdict::kTooFew) return "";
  }
  const Row& r = c.rows.front();
  return fmt::format(
      "every configuration in both files has too few repetitions to be significantly slower at "
      "alpha {} ({} vs {} repetitions reach p = {:.3g} at best); expected at least 4 per side "
      "(run with --repeat 4 or more)",
      c.alpha, r.base.ops_per_sec.size(), r.fresh.ops_per_sec.size(), r.min_p);
}

nlohmann::json to_json(const Comparison& c, const RecordFile& base, const RecordFile& fresh) {
  const auto file = [](const RecordFile& f) {
    return nlohmann::json{
        {"path", f.path}, {"run_records", f.runs.size()}, {"other_records", f.not_repetitions}};
  };
  const auto side_json = [](const Side& s) {
    return nlohmann::json{{"n", s.ops_per_sec.size()},
                          {"median_ops_per_sec", s.median},
                          {"ops_per_sec", s.ops_per_sec},
                          {"costs", s.costs}};
  };
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& r : c.rows) {
    rows.push_back(
        {{"label", r.label},
         {"config", r.config},
         {"base", side_json(r.base)},
         {"new", side_json(r.fresh)},
         {"ratio", r.ratio},
         {"u", r.test.u},
         {"p_value", r.test.p},
         {"exact", r.test.exact},
         {"min_p_value", r.min_p},
         {"verdict", verdict_name(r.verdict)},
         {"note", r.verdict == Verdict::kTooFew ? nlohmann::json(too_few_note(r, c.alpha))
                                                : nlohmann::json()}});
  }
  return {{"base", file(base)},
          {"new", file(fresh)},
          {"alpha", c.alpha},
          {"test", "two-sided Mann-Whitney U over the repetitions' ops_per_sec"},
          {"configurations", rows},
          {"only_in_base", c.only_base},
          {"only_in_new", c.only_new},
          {"config_keys_only_in_base", c.keys_only_base},
          {"config_keys_only_in_new", c.keys_only_new},
          {"ignored_keys", c.ignored}};
}

std::string to_text(const Comparison& c, const RecordFile& base, const RecordFile& fresh) {
  std::string out = fmt::format(
      "BASE {} ({} run records), NEW {} ({} run records); two-sided Mann-Whitney U over the "
      "repetitions, alpha {}\n",
      base.path, base.runs.size(), fresh.path, fresh.runs.size(), c.alpha);
  size_t w = std::string_view("configuration").size();
  for (const Row& r : c.rows) w = std::max(w, r.label.size());
  std::vector<double> base_medians, new_medians;
  for (const Row& r : c.rows) {
    base_medians.push_back(r.base.median);
    new_medians.push_back(r.fresh.median);
  }
  const auto [bu, bu_name] = ops_unit(base_medians);
  const auto [nu, nu_name] = ops_unit(new_medians);
  out += fmt::format("{:<{}}  {:>11} {:>3}  {:>11} {:>3}  {:>8}  {:>8}  {}\n", "configuration", w,
                     fmt::format("base {}", bu_name), "n", fmt::format("new {}", nu_name), "n",
                     "new/base", "p", "verdict");
  for (const Row& r : c.rows) {
    out += fmt::format(
        "{:<{}}  {:>11} {:>3}  {:>11} {:>3}  {:>8}  {:>8}  {}\n", r.label, w,
        in_unit(r.base.median, bu), r.base.ops_per_sec.size(), in_unit(r.fresh.median, nu),
        r.fresh.ops_per_sec.size(), std::isnan(r.ratio) ? "n/a" : fmt::format("{:.3f}", r.ratio),
        std::isnan(r.test.p) ? "n/a" : fmt::format("{:.3g}", r.test.p), verdict_name(r.verdict));
  }
  // One note per pair of sample sizes that cannot reach alpha.
  std::map<std::pair<size_t, size_t>, std::pair<size_t, const Row*>> too_few;
  for (const Row& r : c.rows) {
    if (r.verdict != Verdict::kTooFew) continue;
    auto& [count, first] = too_few[{r.base.ops_per_sec.size(), r.fresh.ops_per_sec.size()}];
    if (count++ == 0) first = &r;
  }
  for (const auto& [sizes, seen] : too_few) {
    out += fmt::format("note: {} configuration{}: {}\n", seen.first, seen.first == 1 ? "" : "s",
                       too_few_note(*seen.second, c.alpha));
  }
  out += costs_text(c, w);
  for (const auto& l : c.only_base) out += fmt::format("only in BASE (not compared): {}\n", l);
  for (const auto& l : c.only_new) out += fmt::format("only in NEW (not compared): {}\n", l);
  const auto keys = [](const std::vector<std::string>& ks) {
    return fmt::format("{}", fmt::join(ks, ", "));
  };
  if (!c.keys_only_base.empty()) {
    out += fmt::format("config keys only in BASE, not used to match: {}\n", keys(c.keys_only_base));
  }
  if (!c.keys_only_new.empty()) {
    out += fmt::format("config keys only in NEW, not used to match: {}\n", keys(c.keys_only_new));
  }
  if (!c.ignored.empty()) out += fmt::format("ignored config keys: {}\n", ignored_text(c));
  return out;
}

}  // namespace pmemids
