/* demo: the realistic demo profile's workload (demo.c) and its columnar
 * writer (demo_col.c).  Internal to svgen. */
#ifndef SV_GEN_DEMO_H
#define SV_GEN_DEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "gen.h"
#include "sim.h"

#define MS 1000000LL
#define US 1000LL
#define DEMO_BASE_NS 5000000000000LL
#define DEMO_STEPS 36
#define DEMO_SOLVER_ITERS 16
#define DEMO_BATCHES 4
#define DEMO_MAX_TASKS 32
#define DEMO_RANKS 2

enum demo_region_id {
    R_MAIN,
    R_TIMESTEP,
    R_ASSEMBLE,
    R_SOLVE,
    R_RHS,
    R_PRECOND,
    R_TRAIN_STEP,
    R_FORWARD,
    R_BACKWARD,
    R_CHECKPOINT,
    R_FLUSH,
    R_HANDLE_REQUEST,
    R_DB_QUERY,
    R_COMPRESS,
    R_LOAD_BATCH,
    R_ALLREDUCE, /* legacy layout: summary-only; columnar: ordinary calls */
    R_COUNT
};

/* Optional columns a region carries. */
enum { COL_TASK = 1, COL_GPU = 2, COL_META = 4 };

typedef struct demo_region {
    const char *name;
    unsigned cols;
    const char *file;
    int line;
    const char *text;
    const char *const *tags;
    size_t ntags;
    const char *tag; /* a single tag stored as one string */
} demo_region;

extern const demo_region demo_regions[R_COUNT];

enum { T_MAIN, T_POOL0, T_POOL1, T_LOADER, T_COUNT };
extern const char *const demo_thread_names[T_COUNT];

/* Layouts `svgen demo --layout` writes. */
typedef enum {
    DEMO_LEGACY,
    DEMO_SCHEMA2,
    DEMO_SCHEMA3,
    DEMO_AGGREGATE,
    DEMO_CAPI,
    DEMO_JSON,   /* the JSON profile of schema3's calls (no perf counters: not in the format) */
    DEMO_JSON_GZ /* the same, gzip'd */
} demo_layout;

typedef struct demo_opts {
    demo_layout layout;
    int slow_region; /* -1 none */
    double slow_factor;
    uint64_t seed; /* jitter seed; 0 = the committed demo */
} demo_opts;

typedef struct demo_rank {
    int rank;
    double slow;  /* compute slowdown of this rank */
    gen_rng rng;  /* the workload's shape: requests, GPU timing gaps */
    gen_rng jrng; /* jitter of every duration */
    const demo_opts *opts;
    sim sim;
    int ntasks;
    char *task_names[DEMO_MAX_TASKS];
    int64_t allreduce[DEMO_STEPS];
    int open[DEMO_MAX_TASKS][16]; /* regions open in each task's script */
    int nopen[DEMO_MAX_TASKS];
} demo_rank;

/* demo_col.c: the ranks in schema 2 or 3 (columnar), the aggregate layout, or
 * as the C API writes them (PATH is then the prefix of one file per rank). */
void demo_write_columnar(const char *path, demo_rank *ranks, int nranks, const demo_opts *o);

#endif
