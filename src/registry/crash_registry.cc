#include "registry/crash_registry.h"

#include "ds/catalog.h"
#include "registry/crash_entry.h"

namespace pmemids {

const std::vector<CrashRow>& crash_table() {
  static const std::vector<CrashRow> table = [] {
    std::vector<CrashRow> out;
    for_each_structure(Catalog{},
                       [&]<template <class> class DS>() { out.push_back(crash_row<DS>()); });
    return out;
  }();
  return table;
}

}  // namespace pmemids
