/* The driver of PMDK 1.12.1's example maps (tree_map/btree_map.c, rbtree_map.c)
 * for scripts/peers/vs.py; built by scripts/peers/build.sh, never part of
 * pmemids' build. It only calls the maps' API.
 *
 * usage: maps_bench btree|rbtree insert|lookup RECORDS OPS POOL
 * Creates the pool file POOL (it must not exist), loads RECORDS uniform random
 * keys (a 128-byte value object allocated in each insert's transaction), then
 * times OPS inserts of new keys, or OPS lookups of loaded keys with the 128-byte
 * value copied out, and prints ns_per_op. The pool is removed at the end, also
 * when a step fails after it was created. Exit 2 on bad arguments, 1 when a
 * step fails. */
#include <errno.h>
#include <libpmemobj.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "btree_map.h"
#include "rbtree_map.h"

enum { VALUE = 128 };

struct bench {
  PMEMobjpool *pop;
  PMEMoid map;
  int btree;
};

static uint64_t state = 88172645463325252ULL;

static uint64_t next_key(void) { /* xorshift64 */
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One transaction: a value object allocated and filled, then inserted. 0 on
 * success, -1 when the transaction aborted. */
static int insert(struct bench *b, uint64_t key, const char *value) {
  volatile int failed = 0; /* set in TX_ONABORT, after a longjmp */
  TX_BEGIN(b->pop) {
    PMEMoid v = pmemobj_tx_alloc(VALUE, 1);
    memcpy(pmemobj_direct(v), value, VALUE);
    if (b->btree)
      btree_map_insert(b->pop, (TOID(struct btree_map)){.oid = b->map}, key, v);
    else
      rbtree_map_insert(b->pop, (TOID(struct rbtree_map)){.oid = b->map}, key, v);
  }
  TX_ONABORT { failed = 1; }
  TX_END
  return failed ? -1 : 0;
}

static PMEMoid get(struct bench *b, uint64_t key) {
  return b->btree ? btree_map_get(b->pop, (TOID(struct btree_map)){.oid = b->map}, key)
                  : rbtree_map_get(b->pop, (TOID(struct rbtree_map)){.oid = b->map}, key);
}

static int usage(const char *why) {
  fprintf(stderr,
          "maps_bench: %s\nusage: maps_bench btree|rbtree insert|lookup RECORDS OPS POOL "
          "(RECORDS and OPS: integers from 1 to 100000000; POOL: a file that does not exist)\n",
          why);
  return 2;
}

static int count(const char *s, size_t *n) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v < 1 || v > 100000000ULL) return -1;
  *n = (size_t)v;
  return 0;
}

/* The timed loops, out of line so that callgrind can collect them alone
 * (--toggle-collect='*timed_*', as pmemids' timed_drive). 0, or -1 when an
 * insert's transaction aborted or a lookup found no value. */
__attribute__((noinline)) static int timed_inserts(struct bench *b, const uint64_t *keys,
                                                   size_t ops, const char *value) {
  int rc = 0;
  for (size_t i = 0; i < ops && rc == 0; ++i) rc = insert(b, keys[i], value);
  return rc;
}

__attribute__((noinline)) static int timed_lookups(struct bench *b, const uint64_t *probe,
                                                   size_t ops, uint64_t *sum) {
  char copy[VALUE];
  for (size_t i = 0; i < ops; ++i) {
    PMEMoid v = get(b, probe[i]);
    if (OID_IS_NULL(v)) return -1;
    memcpy(copy, pmemobj_direct(v), VALUE);
    __asm__ __volatile__("" : : "r"(copy) : "memory"); /* the whole copy is made */
    *sum += (unsigned char)copy[5];
  }
  return 0;
}

/* Loads, times, prints: 0, or 1 when a step failed (said on stderr). */
static int bench(struct bench *b, int lookup, size_t records, size_t ops) {
  uint64_t *keys = malloc((records + ops) * sizeof *keys);
  uint64_t *probe = malloc(ops * sizeof *probe);
  if (!keys || !probe) {
    fprintf(stderr, "maps_bench: out of memory for %zu keys\n", records + 2 * ops);
    free(keys);
    free(probe);
    return 1;
  }
  for (size_t i = 0; i < records + ops; ++i) keys[i] = next_key() | 1; /* 0 is no key */
  for (size_t i = 0; i < ops; ++i) probe[i] = keys[next_key() % records];
  char value[VALUE];
  memset(value, 7, sizeof value);
  int rc = 0;
  for (size_t i = 0; i < records && rc == 0; ++i) rc = insert(b, keys[i], value);
  uint64_t sum = 0;
  double t0 = now_ns();
  if (rc == 0)
    rc = lookup ? timed_lookups(b, probe, ops, &sum) : timed_inserts(b, keys + records, ops, value);
  double t1 = now_ns();
  free(keys);
  free(probe);
  if (rc != 0) {
    fprintf(stderr, "maps_bench: a %s failed: %s\n",
            lookup ? "lookup found no value" : "transaction aborted", pmemobj_errormsg());
    return 1;
  }
  printf("%s %s records=%zu ops=%zu ns_per_op=%.1f checksum=%llu\n", b->btree ? "btree" : "rbtree",
         lookup ? "lookup" : "insert", records, ops, (t1 - t0) / ops, (unsigned long long)sum);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6) return usage("five arguments expected");
  struct bench b = {.btree = strcmp(argv[1], "btree") == 0};
  if (!b.btree && strcmp(argv[1], "rbtree") != 0) return usage("the map is btree or rbtree");
  int lookup = strcmp(argv[2], "lookup") == 0;
  if (!lookup && strcmp(argv[2], "insert") != 0) return usage("the operation is insert or lookup");
  size_t records, ops;
  if (count(argv[3], &records) || count(argv[4], &ops)) return usage("bad RECORDS or OPS");
  const char *path = argv[5];
  if (access(path, F_OK) == 0) return usage("POOL exists already (it is never overwritten)");
  /* 512 bytes per key (value object, node share, allocator headers) plus 64 MiB */
  b.pop = pmemobj_create(path, "maps_bench", (records + ops) * 512 + (64 << 20), 0600);
  if (!b.pop) {
    fprintf(stderr, "maps_bench: cannot create the pool %s: %s\n", path, pmemobj_errormsg());
    return 1;
  }
  PMEMoid *slot = pmemobj_direct(pmemobj_root(b.pop, sizeof(PMEMoid))); /* the map's handle */
  int rc = b.btree ? btree_map_create(b.pop, (TOID(struct btree_map) *)slot, NULL)
                   : rbtree_map_create(b.pop, (TOID(struct rbtree_map) *)slot, NULL);
  if (rc != 0) {
    fprintf(stderr, "maps_bench: cannot create the map: %s\n", pmemobj_errormsg());
    rc = 1;
  } else {
    b.map = *slot;
    rc = bench(&b, lookup, records, ops);
  }
  pmemobj_close(b.pop);
  unlink(path);
  return rc;
}
