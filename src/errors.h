// The error types (UsageError, RuntimeError, InvariantViolation) are public:
// structures built in with PMEMIDS_EXTRA_DS throw them too. pmemids' own
// sources include them through this header.
#pragma once

#include "pmemids/errors.h"
