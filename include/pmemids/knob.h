// A structure's knobs: what a structure lets a run choose (keys per node,
// elements per bucket, how a combiner waits), declared by the structure itself
// as static constexpr descriptors (ds/traits.h: kKnobs). The catalog's union
// of them is what `run` accepts as options (--<name with dashes>), what a
// record's config carries (the knobs of the structure that ran, under
// `name`), what the footprint estimate and `list --json` read, and what the
// report's field tables list. Nothing else names a knob.
//
// A value is held as a double whatever the type (an index into `choices` for
// kChoice, 0/1 for kFlag): knobs are read when a structure is built, never in
// a timed loop.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>

namespace pmemids {

struct DsOptions;

enum class KnobType : uint8_t {
  kUnsigned,  // a whole number in [min, max]
  kReal,      // a finite number in [min, max]
  kFlag,      // present or not (a flag without a value)
  kChoice,    // one of `choices`
};

constexpr std::string_view knob_type_name(KnobType t) {
  switch (t) {
    case KnobType::kUnsigned:
      return "unsigned";
    case KnobType::kReal:
      return "real";
    case KnobType::kFlag:
      return "flag";
    case KnobType::kChoice:
      return "choice";
  }
  return "?";
}

struct Knob {
  std::string_view name;  // config key; the option is --name with '_' spelled '-'
  KnobType type;
  double def;      // the default (kChoice: its index; kFlag: 0 or 1)
  double min = 0;  // kUnsigned, kReal: the accepted range
  double max = 0;
  std::string_view help;                           // the option's --help text
  std::span<const std::string_view> choices = {};  // kChoice
  // --help's default when it is not the value itself ("btree 10, bplustree
  // 15" for a 0 that means the structure's own default); empty: the value.
  std::string_view default_text = {};
  // Where it lands in DsOptions: a member of it, read and written through
  // these; null for a knob with no member of its own, which lands in
  // DsOptions::knobs (KnobValues) instead.
  double (*get)(const DsOptions&) = nullptr;
  void (*set)(DsOptions&, double) = nullptr;

  // The value a structure is built with (the default when none was given).
  double of(const DsOptions& o) const;
  // Sets the value in `o`.
  void assign(DsOptions& o, double v) const;
};

// Knob values by knob: what a command was given (every knob of the catalog,
// at its default unless an option said otherwise), and DsOptions's own for
// knobs without a member. Fixed capacity, no allocation: a DsOptions stays a
// plain value.
class KnobValues {
 public:
  static constexpr size_t kCapacity = 32;
  struct Entry {
    const Knob* knob = nullptr;
    double value = 0;
  };

  // Sets (or replaces) the value of `k`; throws std::length_error past kCapacity.
  void set(const Knob& k, double v) {
    for (size_t i = 0; i < n_; ++i) {
      if (items_[i].knob->name == k.name) {
        items_[i].value = v;
        return;
      }
    }
    if (n_ == kCapacity) throw std::length_error("more knobs than KnobValues holds");
    items_[n_++] = {&k, v};
  }
  std::optional<double> find(std::string_view name) const {
    for (const Entry& e : *this) {
      if (e.knob->name == name) return e.value;
    }
    return std::nullopt;
  }
  const Entry* begin() const { return items_.data(); }
  const Entry* end() const { return items_.data() + n_; }

 private:
  std::array<Entry, kCapacity> items_{};
  size_t n_ = 0;
};

}  // namespace pmemids
