#include "workload/properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>
#include <string_view>

#include "errors.h"
#include "util/escape.h"
#include "util/file_checks.h"
#include "workload/key_chooser.h"

namespace pmemids {
namespace {

// Keys YCSB defines (core workload and client) that have no effect here.
const std::set<std::string> kYcsbIgnored = {"workload",
                                            "db",
                                            "table",
                                            "fieldcount",
                                            "fieldnameprefix",
                                            "readallfields",
                                            "readallfieldsbyname",
                                            "writeallfields",
                                            "dataintegrity",
                                            "measurementtype",
                                            "measurement.interval",
                                            "measurement.trackjvm",
                                            "histogram.buckets",
                                            "hdrhistogram.percentiles",
                                            "hdrhistogram.fileoutput",
                                            "hdrhistogram.output.path",
                                            "timeseries.granularity",
                                            "exporter",
                                            "exportfile",
                                            "maxexecutiontime",
                                            "dotransactions",
                                            "insertstart",
                                            "insertcount",
                                            "zeropadding",
                                            "core_workload_insertion_retry_limit",
                                            "core_workload_insertion_retry_interval",
                                            "exponential.percentile",
                                            "exponential.frac",
                                            "minfieldlength",
                                            "minscanlength",
                                            "fieldlengthhistogram",
                                            "debug",
                                            "requestdistribution.skew",
                                            "operationtimeout"};

// A byte order mark some editors put at the start of a UTF-8 file.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// YCSB keys whose only supported value is the one pmemids implements.
const std::map<std::string, std::string> kYcsbFixed = {
    {"fieldlengthdistribution", "constant"},
    {"scanlengthdistribution", "uniform"},
};

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& origin,
                      const std::string& accepted) {
  throw UsageError(fmt::format("property '{}' = '{}' ({}): expected {}", escape_control(key),
                               escape_control(value), origin, accepted));
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\f\v");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\f\v");
  return s.substr(b, e - b + 1);
}

uint64_t parse_uint(const std::string& key, const std::string& v, const std::string& origin,
                    uint64_t min, uint64_t max) {
  uint64_t out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < min || out > max) {
    bad(key, v, origin, fmt::format("an integer in [{}, {}]", min, max));
  }
  return out;
}

double parse_double(const std::string& key, const std::string& v, const std::string& origin,
                    double min, double max, bool open_max = false) {
  double out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(out) || out < min ||
      out > max || (open_max && out == max)) {
    bad(key, v, origin, fmt::format("a number in [{}, {}{}", min, max, open_max ? ")" : "]"));
  }
  return out;
}

using Setter =
    std::function<void(WorkloadSpec&, const std::string&, const std::string&, const std::string&)>;

Setter uint_field(uint64_t WorkloadSpec::*f, uint64_t min, uint64_t max) {
  return [=](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
    s.*f = parse_uint(k, v, o, min, max);
  };
}
Setter int_field(int64_t WorkloadSpec::*f, int64_t min, int64_t max) {
  return [=](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
    s.*f = static_cast<int64_t>(
        parse_uint(k, v, o, static_cast<uint64_t>(min), static_cast<uint64_t>(max)));
  };
}
Setter u32_field(uint32_t WorkloadSpec::*f, uint32_t min, uint32_t max) {
  return [=](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
    s.*f = static_cast<uint32_t>(parse_uint(k, v, o, min, max));
  };
}
Setter fraction_field(double WorkloadSpec::*f) {
  return [=](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
    s.*f = parse_double(k, v, o, 0.0, 1.0);
  };
}
template <class E>
Setter enum_field(E WorkloadSpec::*f, std::vector<std::pair<std::string, E>> names) {
  return [=](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
    for (const auto& [n, e] : names) {
      if (n == v) {
        s.*f = e;
        return;
      }
    }
    std::string accepted = "one of";
    for (const auto& [n, e] : names) accepted += " " + n;
    bad(k, v, o, accepted);
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"recordcount", uint_field(&WorkloadSpec::recordcount, 0, uint64_t{1} << 40)},
      {"operationcount", uint_field(&WorkloadSpec::operationcount, 0, uint64_t{1} << 40)},
      {"readproportion", fraction_field(&WorkloadSpec::readproportion)},
      {"updateproportion", fraction_field(&WorkloadSpec::updateproportion)},
      {"insertproportion", fraction_field(&WorkloadSpec::insertproportion)},
      {"scanproportion", fraction_field(&WorkloadSpec::scanproportion)},
      {"readmodifywriteproportion", fraction_field(&WorkloadSpec::readmodifywriteproportion)},
      {"deleteproportion", fraction_field(&WorkloadSpec::deleteproportion)},
      {"requestdistribution",
       enum_field<Distribution>(&WorkloadSpec::requestdistribution,
                                {{"uniform", Distribution::kUniform},
                                 {"uniform-inserted", Distribution::kUniformInserted},
                                 {"zipfian", Distribution::kZipfian},
                                 {"zipfian-ycsbc", Distribution::kZipfianYcsbc},
                                 {"latest", Distribution::kLatest},
                                 {"hotspot", Distribution::kHotspot},
                                 {"sequential", Distribution::kSequential}})},
      {"zipfianconstant",
       [](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
         s.zipfianconstant = parse_double(k, v, o, 0.0, 1.0, /*open_max=*/true);
         if (s.zipfianconstant == 0.0) bad(k, v, o, "a number in (0, 1)");
       }},
      {"insertorder",
       enum_field<InsertOrder>(&WorkloadSpec::insertorder, {{"hashed", InsertOrder::kHashed},
                                                            {"ordered", InsertOrder::kOrdered}})},
      {"fieldlength", u32_field(&WorkloadSpec::fieldlength, 1, 1 << 20)},
      {"maxscanlength", u32_field(&WorkloadSpec::maxscanlength, 1, 1 << 24)},
      {"hotspotdatafraction", fraction_field(&WorkloadSpec::hotspotdatafraction)},
      {"hotspotopnfraction", fraction_field(&WorkloadSpec::hotspotopnfraction)},
      {"readmissrate", fraction_field(&WorkloadSpec::readmissrate)},
      {"seed",
       [](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
         s.seed = parse_seed(v, fmt::format("{}: property '{}' =", o, k));
       }},
      {"tracefile",
       [](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
         if (v.empty()) bad(k, v, o, "the path of a trace file (pmemids stream writes one)");
         s.tracefile = v;
       }},
      {"traceload", enum_field<bool>(&WorkloadSpec::traceload, {{"true", true}, {"false", false}})},
      {"operationset", enum_field<OpSet>(&WorkloadSpec::operationset, {{"kv", OpSet::kKv},
                                                                       {"queue", OpSet::kQueue},
                                                                       {"set", OpSet::kSet},
                                                                       {"stack", OpSet::kStack}})},
      {"pushproportion", fraction_field(&WorkloadSpec::pushproportion)},
      {"popproportion", fraction_field(&WorkloadSpec::popproportion)},
      {"pushpoppairs",
       enum_field<bool>(&WorkloadSpec::pushpoppairs, {{"false", false}, {"true", true}})},
      {"keyrange", uint_field(&WorkloadSpec::keyrange, 2, uint64_t{1} << 40)},
      {"producers", int_field(&WorkloadSpec::producers, 0, 1024)},
      {"consumers", int_field(&WorkloadSpec::consumers, 0, 1024)},
      {"queueslots", uint_field(&WorkloadSpec::queueslots, 1, uint64_t{1} << 32)},
      {"slotsize", u32_field(&WorkloadSpec::slotsize, 1, 1 << 24)},
      {"poolnodes", uint_field(&WorkloadSpec::poolnodes, 0, uint64_t{1} << 36)},
      {"localwork", u32_field(&WorkloadSpec::localwork, 0, 1 << 20)},
  };
  return table;
}

// YCSB's client settings: applied by build(true), else listed as ignored.
const std::map<std::string, Setter>& client_setters() {
  static const std::map<std::string, Setter> table = {
      {"threadcount",
       [](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
         s.threadcount = static_cast<int>(parse_uint(k, v, o, 1, 1024));
       }},
      {"target", [](WorkloadSpec& s, const std::string& k, const std::string& v,
                    const std::string& o) { s.target = parse_double(k, v, o, 0, 1e12); }},
      {"status.interval",
       [](WorkloadSpec& s, const std::string& k, const std::string& v, const std::string& o) {
         s.status_interval = parse_double(k, v, o, 0.001, 86400);
       }},
  };
  return table;
}

// Keys that mean something for some operation sets only; every other key
// applies to all.
const std::map<std::string, std::vector<OpSet>>& op_set_keys() {
  using enum OpSet;
  static const std::map<std::string, std::vector<OpSet>> keys = {
      {"updateproportion", {kKv}},
      {"scanproportion", {kKv}},
      {"readmodifywriteproportion", {kKv}},
      {"requestdistribution", {kKv}},
      {"zipfianconstant", {kKv}},
      {"insertorder", {kKv}},
      {"maxscanlength", {kKv}},
      {"hotspotdatafraction", {kKv}},
      {"hotspotopnfraction", {kKv}},
      {"readmissrate", {kKv}},
      {"tracefile", {kKv}},
      {"traceload", {kKv}},
      {"readproportion", {kKv, kSet}},
      {"insertproportion", {kKv, kSet}},
      {"deleteproportion", {kKv, kSet}},
      {"recordcount", {kKv, kQueue, kStack}},
      {"fieldlength", {kKv, kQueue}},
      {"keyrange", {kSet}},
      {"pushproportion", {kQueue, kStack}},
      {"popproportion", {kQueue, kStack}},
      {"pushpoppairs", {kQueue, kStack}},
      {"producers", {kQueue}},
      {"consumers", {kQueue}},
      {"queueslots", {kQueue}},
      {"slotsize", {kQueue}},
      {"poolnodes", {kStack}},
      {"localwork", {kStack}},
  };
  return keys;
}

// The operation set's proportions must sum to 1.
void check_proportions(const WorkloadSpec& spec) {
  double sum = 0;
  std::string terms;
  switch (spec.operationset) {
    case OpSet::kKv:
    case OpSet::kOrderedKv:
      sum = spec.readproportion + spec.updateproportion + spec.insertproportion +
            spec.scanproportion + spec.readmodifywriteproportion + spec.deleteproportion;
      terms =
          fmt::format("read {} + update {} + insert {} + scan {} + readmodifywrite {} + delete {}",
                      spec.readproportion, spec.updateproportion, spec.insertproportion,
                      spec.scanproportion, spec.readmodifywriteproportion, spec.deleteproportion);
      if (spec.recordcount == 0) {
        throw UsageError("recordcount=0: a kv workload needs at least one record");
      }
      break;
    case OpSet::kSet:
      sum = spec.readproportion + spec.insertproportion + spec.deleteproportion;
      terms = fmt::format("read (contains) {} + insert {} + delete {}", spec.readproportion,
                          spec.insertproportion, spec.deleteproportion);
      break;
    case OpSet::kQueue:
    case OpSet::kStack:
      sum = spec.pushproportion + spec.popproportion;
      terms = fmt::format("push {} + pop {}", spec.pushproportion, spec.popproportion);
      if (spec.pushpoppairs && (spec.pushproportion != 0.5 || spec.popproportion != 0.5)) {
        throw UsageError(
            fmt::format("pushpoppairs=true alternates push and pop: it needs pushproportion = "
                        "popproportion = 0.5, not {} and {}",
                        spec.pushproportion, spec.popproportion));
      }
      break;
  }
  if (std::abs(sum - 1.0) > 1e-9) {
    throw UsageError(
        fmt::format("operation proportions of operationset={} sum to {} ({}); they must sum to 1",
                    op_set_name(spec.operationset), sum, terms));
  }
  if (spec.operationset == OpSet::kQueue && spec.fieldlength > spec.slotsize) {
    throw UsageError(fmt::format(
        "fieldlength={} does not fit a ring slot of slotsize={} bytes; raise slotsize or lower "
        "fieldlength",
        spec.fieldlength, spec.slotsize));
  }
}

}  // namespace

uint64_t parse_seed(const std::string& text, const std::string& what) {
  uint64_t out = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    throw UsageError(
        fmt::format("{} '{}': expected {}", what, escape_control(text), kSeedAccepted));
  }
  return out;
}

const char* distribution_name(Distribution d) {
  switch (d) {
    case Distribution::kUniform:
      return "uniform";
    case Distribution::kUniformInserted:
      return "uniform-inserted";
    case Distribution::kZipfian:
      return "zipfian";
    case Distribution::kZipfianYcsbc:
      return "zipfian-ycsbc";
    case Distribution::kLatest:
      return "latest";
    case Distribution::kHotspot:
      return "hotspot";
    case Distribution::kSequential:
      return "sequential";
  }
  return "?";
}

const char* insert_order_name(InsertOrder o) {
  return o == InsertOrder::kHashed ? "hashed" : "ordered";
}

std::vector<std::string> PropertySet::known_keys() {
  std::vector<std::string> keys;
  for (const auto& [k, s] : setters()) keys.push_back(k);
  for (const auto& [k, s] : client_setters()) keys.push_back(k);
  return keys;
}

void PropertySet::put(const std::string& key, const std::string& value, const std::string& origin) {
  entries_[key] = Entry{value, origin};
}

void PropertySet::load_file(const std::string& path) {
  load_text(read_input_file(path, "workload file"), path);
}

void PropertySet::load_text(std::string text, const std::string& path) {
  if (text.starts_with(kUtf8Bom)) text.erase(0, kUtf8Bom.size());
  files_.push_back(path);
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string t = trim(line);  // also drops the '\r' of a CRLF line end
    if (t.empty() || t[0] == '#' || t[0] == '!') continue;
    const auto sep = t.find_first_of("=:");
    if (sep == std::string::npos || sep == 0) {
      throw UsageError(
          fmt::format("{}:{}: expected 'key=value', got '{}'", path, lineno, escape_control(t)));
    }
    put(trim(t.substr(0, sep)), trim(t.substr(sep + 1)), fmt::format("{}:{}", path, lineno));
  }
}

void PropertySet::set_override(const std::string& key_value, const std::string& origin) {
  const auto sep = key_value.find('=');
  if (sep == std::string::npos || sep == 0) {
    throw UsageError(fmt::format("{} '{}': expected key=value", origin, escape_control(key_value)));
  }
  put(trim(key_value.substr(0, sep)), trim(key_value.substr(sep + 1)), origin);
}

void PropertySet::set_from_option(const std::string& key, const std::string& value,
                                  const std::string& option) {
  if (auto it = entries_.find(key);
      it != entries_.end() && it->second.origin == "-p" && it->second.value != value) {
    throw UsageError(fmt::format("{} {} and -p {}={} disagree; give one of them", option,
                                 escape_control(value), key, escape_control(it->second.value)));
  }
  put(key, value, option);
}

WorkloadSpec PropertySet::build(bool client_settings) const {
  WorkloadSpec spec;
  spec.files = files_;
  for (const auto& [key, e] : entries_) {
    if (auto it = setters().find(key); it != setters().end()) {
      it->second(spec, key, e.value, e.origin);
    } else if (auto c = client_setters().find(key); c != client_setters().end()) {
      if (client_settings) {
        c->second(spec, key, e.value, e.origin);
      } else {
        spec.ignored[key] = e.value;
      }
    } else if (auto fixed = kYcsbFixed.find(key); fixed != kYcsbFixed.end()) {
      if (e.value != fixed->second)
        bad(key, e.value, e.origin, "'" + fixed->second + "' (the only one supported)");
      spec.ignored[key] = e.value;
    } else if (kYcsbIgnored.count(key) != 0) {
      spec.ignored[key] = e.value;
    } else {
      std::string known;
      for (const auto& k : known_keys()) known += (known.empty() ? "" : ", ") + k;
      throw UsageError(
          fmt::format("unknown workload property '{}' ({}); pmemids applies: {} "
                      "(and accepts YCSB's other keys as ignored)",
                      escape_control(key), e.origin, known));
    }
  }
  for (const auto& [key, e] : entries_) {
    const auto it = op_set_keys().find(key);
    if (it == op_set_keys().end()) continue;
    if (std::find(it->second.begin(), it->second.end(), spec.operationset) != it->second.end()) {
      continue;
    }
    std::string sets;
    for (OpSet o : it->second) sets += (sets.empty() ? "" : ", ") + std::string(op_set_name(o));
    throw UsageError(
        fmt::format("property '{}' ({}) applies to operationset {}; this workload is "
                    "operationset={}",
                    key, e.origin, sets, op_set_name(spec.operationset)));
  }
  check_proportions(spec);
  if (spec.traceload && spec.tracefile.empty()) {
    throw UsageError(
        "traceload=true loads the keys of a trace: it needs tracefile=PATH (pmemids stream "
        "writes one)");
  }
  constexpr uint64_t kMaxScanBytes = uint64_t{1} << 30;
  if (spec.scanproportion > 0 && uint64_t{spec.fieldlength} * spec.maxscanlength > kMaxScanBytes) {
    throw UsageError(
        fmt::format("a scan of maxscanlength={} values of fieldlength={} bytes exceeds "
                    "1 GiB; lower one of them",
                    spec.maxscanlength, spec.fieldlength));
  }
  return spec;
}

bool property_applies(std::string_view key, OpSet set) {
  const auto it = op_set_keys().find(std::string(key));
  if (it == op_set_keys().end()) return true;
  const OpSet as_given = set == OpSet::kOrderedKv ? OpSet::kKv : set;
  return std::find(it->second.begin(), it->second.end(), as_given) != it->second.end();
}

std::string WorkloadSpec::request_generator() const {
  return tracefile.empty() ? generator_name(requestdistribution) : "trace";
}

nlohmann::json WorkloadSpec::to_json() const {
  nlohmann::json all = {
      {"recordcount", recordcount},
      {"operationcount", operationcount},
      {"readproportion", readproportion},
      {"updateproportion", updateproportion},
      {"insertproportion", insertproportion},
      {"scanproportion", scanproportion},
      {"readmodifywriteproportion", readmodifywriteproportion},
      {"deleteproportion", deleteproportion},
      {"requestdistribution", distribution_name(requestdistribution)},
      {"zipfianconstant", zipfianconstant},
      {"insertorder", insert_order_name(insertorder)},
      {"fieldlength", fieldlength},
      {"maxscanlength", maxscanlength},
      {"hotspotdatafraction", hotspotdatafraction},
      {"hotspotopnfraction", hotspotopnfraction},
      {"readmissrate", readmissrate},
      {"seed", seed},
      {"operationset", op_set_name(operationset)},
      {"pushproportion", pushproportion},
      {"popproportion", popproportion},
      {"pushpoppairs", pushpoppairs},
      {"keyrange", keyrange},
      {"producers", producers < 0 ? nlohmann::json() : nlohmann::json(producers)},
      {"consumers", consumers < 0 ? nlohmann::json() : nlohmann::json(consumers)},
      {"queueslots", queueslots},
      {"poolnodes", poolnodes},
      {"localwork", localwork},
      {"slotsize", slotsize},
      {"tracefile", tracefile.empty() ? nlohmann::json() : nlohmann::json(tracefile)},
      {"traceload", traceload},
      {"workload_files", files},
      {"ignored_properties", ignored},
  };
  nlohmann::json out;
  for (auto& [key, value] : all.items()) {
    if (property_applies(key, operationset)) out[key] = std::move(value);
  }
  if (property_applies("requestdistribution", operationset)) {
    out["request_generator"] = request_generator();
  }
  return out;
}

}  // namespace pmemids
