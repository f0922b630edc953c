/* Minimal stand-in for the retired libvmem, so the reference pmemids_bench links.
   Only its pmem-tx/pmem/dram types are run; the vmem types are never measured. */
#pragma once
#include <stddef.h>
#include <stdlib.h>
typedef struct vmem_shim VMEM;
#define VMEM_MIN_POOL (14u << 20)
static inline VMEM* vmem_create(const char*, size_t) { return (VMEM*)1; }
static inline void vmem_delete(VMEM*) {}
static inline void* vmem_malloc(VMEM*, size_t n) { return malloc(n); }
static inline void* vmem_calloc(VMEM*, size_t a, size_t b) { return calloc(a, b); }
static inline void vmem_free(VMEM*, void* p) { free(p); }
