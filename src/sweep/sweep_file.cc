#include "sweep/sweep_file.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "errors.h"
#include "sweep/expand.h"
#include "util/file_checks.h"
#include "util/shipped_files.h"
#include "workload/properties.h"

namespace pmemids::sweep {
namespace {

constexpr const char* kScalarTypes = "a string, integer, float or boolean";
constexpr const char* kRangeForms =
    "\"a:b\" (a, a+1, ..., b), \"a:s:b\" (step s > 0), \"a:*f:b\" (factor f > 1, a > 0), "
    "integers with a <= b";

// Errors name the file and the key with its table path ("matrix.threads").
class Ctx {
 public:
  explicit Ctx(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what,
                         const std::string& accepted) const {
    throw UsageError(fmt::format("{}: {}: {}; accepted: {}", file_, key, what, accepted));
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

std::string type_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "a list";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

std::optional<Value> scalar(const toml::node& n) {
  if (const auto* s = n.as_string()) return Value{s->get()};
  if (const auto* i = n.as_integer()) return Value{i->get()};
  if (const auto* f = n.as_floating_point()) return Value{f->get()};
  if (const auto* b = n.as_boolean()) return Value{b->get()};
  return std::nullopt;
}

// A table's entries in the order they are written.
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::tuple<toml::source_position, std::string, const toml::node*>> items;
  for (const auto& [k, v] : t) items.emplace_back(k.source().begin, std::string(k.str()), &v);
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (auto& [pos, k, v] : items) out.emplace_back(std::move(k), v);
  return out;
}

// Adds values to one entry, refusing a repeated one (it would repeat a
// configuration); the texts seen are kept in a set, so a long list or range is
// checked in O(n log n), not O(n^2).
class ValueAdder {
 public:
  ValueAdder(const Ctx& ctx, const std::string& where, Entry& e, const std::string& accepted)
      : ctx_(ctx), where_(where), e_(e), accepted_(accepted) {}
  void operator()(Value v) {
    std::string text = value_text(v);
    if (!seen_.insert(text).second) {
      ctx_.fail(where_, fmt::format("'{}' is listed twice", text), accepted_);
    }
    e_.values.push_back(std::move(v));
  }

 private:
  const Ctx& ctx_;
  const std::string& where_;
  Entry& e_;
  const std::string& accepted_;
  std::set<std::string> seen_;
};

std::vector<std::string> file_list(const Ctx& ctx, const std::string& where, const toml::array& a,
                                   const std::string& accepted) {
  std::vector<std::string> files;
  for (const auto& el : a) {
    const auto* s = el.as_string();
    if (s == nullptr) ctx.fail(where, fmt::format("a list holding {}", type_of(el)), accepted);
    files.push_back(s->get());
  }
  if (files.empty()) ctx.fail(where, "an empty list", accepted);
  return files;
}

// Checks a scalar against an option: booleans for flags and only for flags.
Value option_scalar(const Ctx& ctx, const std::string& where, const OptionKey& k,
                    const toml::node& n) {
  auto v = scalar(n);
  if (!v) ctx.fail(where, fmt::format("{} is not a value for this option", type_of(n)), k.accepted);
  if (k.flag != std::holds_alternative<bool>(*v)) {
    ctx.fail(where, fmt::format("{} ({})", type_of(n), value_text(*v)), k.accepted);
  }
  return *v;
}

std::vector<int64_t> range(const Ctx& ctx, const std::string& where, const std::string& text) {
  try {
    return parse_range(text);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}: {}", ctx.file(), where, e.what()));
  }
}

// The entries a scale may override and the base may hold.
struct Layer {
  std::vector<Entry> options;
  std::vector<Entry> properties;
  std::vector<std::pair<std::string, const toml::table*>> excludes;  // path, table
};

Entry* find_entry(std::vector<Entry>& entries, const std::string& key) {
  for (auto& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

void add_entry(const Ctx& ctx, const std::string& where, std::vector<Entry>& entries, Entry e,
               const std::string& accepted) {
  if (find_entry(entries, e.key) != nullptr) {
    ctx.fail(where, "given twice (at the top level and in [matrix], or in both spellings)",
             accepted);
  }
  entries.push_back(std::move(e));
}

void read_matrix(const Ctx& ctx, const std::string& prefix, const toml::table& t,
                 const RunKeys& keys, Layer& layer) {
  for (const auto& [name, node] : in_file_order(t)) {
    const std::string where = prefix + name;
    if (const char* why = refused_key(name)) ctx.fail(where, why, keys.names());
    const OptionKey* k = keys.find(name);
    if (k == nullptr) ctx.fail(where, "unknown option", keys.names());
    Entry e{k->name, {}, true};
    ValueAdder add(ctx, where, e, k->accepted);
    if (const auto* a = node->as_array()) {
      for (const auto& el : *a) {
        if (const auto* files = el.as_array(); files != nullptr && k->repeatable) {
          add(file_list(ctx, where, *files, k->accepted));
        } else {
          add(option_scalar(ctx, where, *k, el));
        }
      }
      if (e.values.empty()) ctx.fail(where, "an empty list", k->accepted);
    } else if (const auto* s = node->as_string(); s != nullptr && is_range(s->get())) {
      for (int64_t v : range(ctx, where, s->get())) add(v);
    } else {
      add(option_scalar(ctx, where, *k, *node));
    }
    add_entry(ctx, where, layer.options, std::move(e), k->accepted);
  }
}

void read_properties(const Ctx& ctx, const std::string& prefix, const toml::table& t,
                     Layer& layer) {
  const std::string accepted =
      fmt::format("{}, a list of them, or a range {}", kScalarTypes, kRangeForms);
  for (const auto& [name, node] : in_file_order(t)) {
    const std::string where = prefix + name;
    Entry e{name, {}, false};
    ValueAdder add(ctx, where, e, accepted);
    if (const auto* a = node->as_array()) {
      e.in_matrix = true;
      for (const auto& el : *a) {
        auto v = scalar(el);
        if (!v) ctx.fail(where, fmt::format("a list holding {}", type_of(el)), accepted);
        add(*v);
      }
      if (e.values.empty()) ctx.fail(where, "an empty list", accepted);
    } else if (const auto* s = node->as_string(); s != nullptr && is_range(s->get())) {
      e.in_matrix = true;
      for (int64_t v : range(ctx, where, s->get())) add(v);
    } else {
      auto v = scalar(*node);
      if (!v) ctx.fail(where, type_of(*node), accepted);
      add(*v);
    }
    if (find_entry(layer.properties, name) != nullptr) ctx.fail(where, "given twice", accepted);
    layer.properties.push_back(std::move(e));
  }
}

// Reads one layer: the file's top level, or one [scale.<name>] table.
Layer read_layer(const Ctx& ctx, const std::string& prefix, const toml::table& t,
                 const RunKeys& keys, bool top) {
  Layer layer;
  const std::string sections =
      top ? "matrix, properties, exclude, scale" : "matrix, properties, exclude";
  const std::string accepted = fmt::format("the options of `pmemids {}` ({}) or the tables {}",
                                           keys.command_text(), keys.names(), sections);
  const toml::table* matrix = nullptr;
  for (const auto& [name, node] : in_file_order(t)) {
    const std::string where = prefix + name;
    if (name == "matrix") {
      matrix = node->as_table();
      if (matrix == nullptr) ctx.fail(where, type_of(*node), "a table [matrix] of options");
    } else if (name == "properties") {
      const auto* p = node->as_table();
      if (p == nullptr) ctx.fail(where, type_of(*node), "a table [properties]");
      read_properties(ctx, where + ".", *p, layer);
    } else if (name == "exclude") {
      const auto* a = node->as_array();
      if (a == nullptr || !a->is_array_of_tables()) {
        ctx.fail(where, type_of(*node), "tables written [[exclude]]");
      }
      for (size_t i = 0; i < a->size(); ++i) {
        layer.excludes.emplace_back(fmt::format("{}[{}]", where, i + 1), a->get(i)->as_table());
      }
    } else if (name == "scale" && top) {
      continue;  // read by the caller
    } else if (name == "command") {
      const auto* c = node->as_string();
      if (!top || c == nullptr || c->get() != keys.command_text()) {
        ctx.fail(where, top ? "not the command these keys belong to" : "only at the top level",
                 fmt::format("\"{}\" at the top level", keys.command_text()));
      }
    } else if (const char* why = refused_key(name)) {
      ctx.fail(where, why, accepted);
    } else {
      const OptionKey* k = keys.find(name);
      if (k == nullptr) ctx.fail(where, "unknown key", accepted);
      Entry e{k->name, {}, false};
      if (const auto* a = node->as_array()) {
        if (!k->repeatable) {
          ctx.fail(where, "a list at the top level (to sweep over values, put the key in [matrix])",
                   k->accepted);
        }
        e.values.emplace_back(file_list(ctx, where, *a, k->accepted));
      } else {
        e.values.push_back(option_scalar(ctx, where, *k, *node));
      }
      add_entry(ctx, where, layer.options, std::move(e), k->accepted);
    }
  }
  // [matrix] after the top-level keys whatever its position in the file.
  if (matrix != nullptr) read_matrix(ctx, prefix + "matrix.", *matrix, keys, layer);
  return layer;
}

// A scale's entries replace the base's with the same key, in place; new ones go last.
void override_entries(std::vector<Entry>& base, std::vector<Entry> over) {
  for (auto& e : over) {
    if (Entry* old = find_entry(base, e.key)) {
      *old = std::move(e);
    } else {
      base.push_back(std::move(e));
    }
  }
}

Exclude read_exclude(const Ctx& ctx, const std::string& where, const toml::table& t,
                     const RunKeys& keys, const std::set<std::string>& property_keys) {
  std::string accepted = keys.names() + ", ";
  for (const auto& p : property_keys) accepted += p + ", ";
  accepted += "each a value or a list of values (any of them)";
  Exclude ex;
  for (const auto& [name, node] : in_file_order(t)) {
    const std::string key_where = where + "." + name;
    ExcludeTerm term;
    if (const OptionKey* k = keys.find(name)) {
      term.key = k->name;
    } else if (property_keys.count(name) != 0) {
      term.key = name;
      term.property = true;
    } else {
      ctx.fail(key_where, "unknown key", accepted);
    }
    for (const auto& existing : ex) {
      if (existing.key == term.key) ctx.fail(key_where, "given twice", accepted);
    }
    if (const auto* a = node->as_array()) {
      for (const auto& el : *a) {
        auto v = scalar(el);
        if (!v) ctx.fail(key_where, fmt::format("a list holding {}", type_of(el)), accepted);
        term.any_of.push_back(*v);
      }
      if (term.any_of.empty()) ctx.fail(key_where, "an empty list", accepted);
    } else {
      auto v = scalar(*node);
      if (!v) ctx.fail(key_where, type_of(*node), accepted);
      term.any_of.push_back(*v);
    }
    ex.push_back(std::move(term));
  }
  if (ex.empty()) ctx.fail(where, "an empty table (it would drop every configuration)", accepted);
  return ex;
}

// A relative workload path as written in the sweep file: found by the rule of
// util/shipped_files.h, with the sweep file's directory and its parents searched
// after the current directory (so a sweep file anywhere can name workloads/pmemids-read).
std::string resolve_path(const std::string& written, const std::string& sweep_file) {
  try {
    return locate_shipped(written, ShippedKind::kWorkload, sweep_file).path;
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: workload: {}", sweep_file, e.what()));
  }
}

using Scales = std::vector<std::pair<std::string, Layer>>;

// The [scale.<name>] tables, in file order (their names listed in spec.scales).
Scales read_scales(const Ctx& ctx, const toml::table& root, const RunKeys& keys, SweepSpec& spec) {
  Scales scales;
  const toml::node* s = root.get("scale");
  if (s == nullptr) return scales;
  const auto* t = s->as_table();
  if (t == nullptr) ctx.fail("scale", type_of(*s), "tables [scale.<name>]");
  for (const auto& [sname, node] : in_file_order(*t)) {
    const auto* st = node->as_table();
    if (st == nullptr) ctx.fail("scale." + sname, type_of(*node), "a table [scale.<name>]");
    if (sname == "default") {
      ctx.fail("scale.default", "reserved: the default scale is the file's top level",
               "another name, such as paper");
    }
    scales.emplace_back(sname, read_layer(ctx, "scale." + sname + ".", *st, keys, false));
    spec.scales.push_back(sname);
  }
  return scales;
}

// The property keys an [[exclude]] may name: the known ones and every one the file sets.
std::set<std::string> property_keys_of(const Layer& base, const Scales& scales) {
  std::set<std::string> property_keys;
  for (const auto& k : PropertySet::known_keys()) property_keys.insert(k);
  for (const auto& e : base.properties) property_keys.insert(e.key);
  for (const auto& [sname, layer] : scales) {
    for (const auto& e : layer.properties) property_keys.insert(e.key);
  }
  return property_keys;
}

// Every [[exclude]] is checked, the chosen scale's are used (in spec), and the
// chosen scale's keys replace the base's, whether the base had them at the
// top level or in [matrix].
void apply_scale(const Ctx& ctx, const std::string& scale, const RunKeys& keys, Layer& base,
                 Scales& scales, SweepSpec& spec) {
  const std::set<std::string> property_keys = property_keys_of(base, scales);
  for (const auto& [where, t] : base.excludes) {
    spec.excludes.push_back(read_exclude(ctx, where, *t, keys, property_keys));
  }
  bool found = scale == "default";
  for (auto& [sname, layer] : scales) {
    std::vector<Exclude> excludes;
    for (const auto& [where, t] : layer.excludes) {
      excludes.push_back(read_exclude(ctx, where, *t, keys, property_keys));
    }
    if (sname != scale) continue;
    found = true;
    override_entries(base.options, std::move(layer.options));
    override_entries(base.properties, std::move(layer.properties));
    for (auto& ex : excludes) spec.excludes.push_back(std::move(ex));
  }
  if (!found) {
    std::string names = "default";
    for (const auto& s : spec.scales) names += ", " + s;
    ctx.fail("scale", fmt::format("no [scale.{}] table for --scale {}", scale, scale), names);
  }
}

// The workload files the options name, found (spec.workload_paths).
void resolve_workload_paths(SweepSpec& spec, const std::string& name) {
  for (const auto& e : spec.options) {
    if (e.key != "workload") continue;
    for (const auto& v : e.values) {
      if (const auto* s = std::get_if<std::string>(&v)) {
        spec.workload_paths[*s] = resolve_path(*s, name);
      } else if (const auto* l = std::get_if<std::vector<std::string>>(&v)) {
        for (const auto& f : *l) spec.workload_paths[f] = resolve_path(f, name);
      }
    }
  }
}

SweepSpec build_spec(const toml::table& root, const std::string& name, const std::string& scale,
                     const RunKeys& keys) {
  const Ctx ctx(name);
  SweepSpec spec;
  spec.file = name;
  spec.scale = scale;
  Layer base = read_layer(ctx, "", root, keys, true);
  Scales scales = read_scales(ctx, root, keys, spec);
  apply_scale(ctx, scale, keys, base, scales, spec);
  spec.options = std::move(base.options);
  spec.properties = std::move(base.properties);
  spec.command = keys.command();
  if (!keys.is_run() && (!spec.properties.empty() || root.get("properties") != nullptr)) {
    ctx.fail("properties", fmt::format("`{}` takes no workload properties", keys.command_text()),
             fmt::format("the options of `pmemids {}`", keys.command_text()));
  }
  resolve_workload_paths(spec, name);
  return spec;
}

}  // namespace

std::string value_text(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::string s = fmt::format("{}", *d);
    if (std::isfinite(*d) && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  std::string out;
  for (const auto& f : std::get<std::vector<std::string>>(v)) out += (out.empty() ? "" : ",") + f;
  return out;
}

nlohmann::json value_json(const Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

namespace {

toml::table parse_toml(const std::string& text, const std::string& name) {
  try {
    return toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw UsageError(fmt::format("{}:{}:{}: TOML syntax: {}", name, e.source().begin.line,
                                 e.source().begin.column, e.description()));
  }
}

}  // namespace

SweepSpec parse_sweep_text(const std::string& text, const std::string& name,
                           const std::string& scale, const RunKeys& keys) {
  return build_spec(parse_toml(text, name), name, scale, keys);
}

SweepSpec parse_sweep_file(const std::string& path, const std::string& scale, const RunKeys& keys) {
  return parse_sweep_text(read_input_file(path, "sweep file"), path, scale, keys);
}

std::vector<std::string> read_sweep_command_text(const std::string& text, const std::string& name) {
  const toml::table root = parse_toml(text, name);
  const toml::node* c = root.get("command");
  if (c == nullptr) return {"run"};
  if (!c->is_string()) {
    Ctx(name).fail("command", type_of(*c), "a string: \"run\" or \"micro <bench>\"");
  }
  std::vector<std::string> words;
  std::istringstream in(c->as_string()->get());
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) Ctx(name).fail("command", "empty", "\"run\" or \"micro <bench>\"");
  return words;
}

std::vector<std::string> read_sweep_command(const std::string& path) {
  return read_sweep_command_text(read_input_file(path, "sweep file"), path);
}

}  // namespace pmemids::sweep
