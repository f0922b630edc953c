#include "registry/registry.h"

namespace pmemids {
namespace {

std::vector<DsEntry>& added() {
  static std::vector<DsEntry> entries;
  return entries;
}

}  // namespace

void add_index(DsEntry e) { added().push_back(e); }

const std::vector<DsEntry>& added_indexes() { return added(); }

}  // namespace pmemids
