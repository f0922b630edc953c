#include "crash/crash_registry.h"

#include "backend/plain.h"
#include "crash/crash_impl.h"
#include "ds/catalog.h"

namespace pmemids {
namespace {

using CrashFn = CrashReport (*)(const CrashOptions&, const CrashWorkload&);

template <template <class> class DS, class B>
CrashFn crash_of() {
  using D = DS<DramBackend>;
  if constexpr (!D::kHarness && D::kModes.has(B::kMode)) {
    return &run_crash<DS, B>;
  } else {
    return nullptr;
  }
}

}  // namespace

const std::vector<std::array<CrashFn, 4>>& crash_table() {
  static const std::vector<std::array<CrashFn, 4>> table = [] {
    std::vector<std::array<CrashFn, 4>> out;
    for_each_structure(Catalog{}, [&]<template <class> class DS>() {
      out.push_back({nullptr, nullptr, crash_of<DS, ShadowPersistBackend>(),
                     crash_of<DS, ShadowTransBackend>()});
    });
    return out;
  }();
  return table;
}

}  // namespace pmemids
