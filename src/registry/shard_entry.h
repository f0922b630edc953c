// The definition a registry shard (registry/shard.h) instantiates for its
// index I: the I-th structure's entry with its crash row. Included only by the
// units CMakeLists.txt generates, one per structure.
#pragma once

#include <cstddef>

#include "ds/catalog.h"
#include "registry/crash_entry.h"
#include "registry/entry.h"
#include "registry/shard.h"

namespace pmemids {

template <size_t I>
DsEntry catalog_entry() {
  return with_structure<I>(
      Catalog{}, []<template <class> class DS>() { return make_entry<DS>(crash_row<DS>()); });
}

}  // namespace pmemids
