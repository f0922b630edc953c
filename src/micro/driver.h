// Running `pmemids micro`: expand each selected bench's grid, refuse what cannot
// run here (before anything runs), then measure every point --warmup +
// --repeat times, appending one record per repetition (and an aggregate when
// --repeat > 1) and printing the table on stdout, progress on stderr.
//
// Points whose libpmem environment differs from this process' (see
// libpmem_env.h) run in a child of the same command; inside such a child only
// that group's points run.
#pragma once

#include <vector>

#include "micro/options.h"

namespace pmemids::micro {

void run_micro(const std::vector<Resolved>& selection, const MicroOptions& o);

}  // namespace pmemids::micro
