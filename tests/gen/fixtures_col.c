/* fixtures_col: the columnar (schema 2/3), aggregate, C-API and inferred-lane
 * fixtures of tests/gen/FIXTURES.md ("Columnar fixtures").  Every value here
 * is the contract of that page; change both together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_columnar.h"
#include "scenarios.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define STRS(...) ((const char *const[]){__VA_ARGS__})
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------- the full profile */

static const char outer_text[] = "def outer():\n    inner()\n";

/* Rank 0: outer (2 calls), inner (3 calls: two on MainThread, the third on
 * the worker, concatenated per thread: start deltas 150, 450, -300).
 * Rank 1: outer (1 call) > solve (2 calls).  File-scope arrays: the rows
 * point into them. */
static const int64_t r0_start[] = {100, 500}, r0_end[] = {400, 900}, r0_call[] = {1, 4},
                     r0_parent[] = {-1, -1}, r0_thread[] = {0, 0}, r0_task[] = {0, -1},
                     r0_await[] = {120, 0};
static const char *const r0_meta[] = {"{\"step\": 0}", "{\"step\": 1}"};
static const int64_t r1_start[] = {150, 600, 300}, r1_end[] = {250, 700, 350},
                     r1_gpu[] = {40, -1, 20}, r1_call[] = {2, 5, 3}, r1_parent[] = {1, 4, -1},
                     r1_thread[] = {0, 0, 1}, r1_badthread[] = {0, 7, 1}, r1_task[] = {0, -1, -1},
                     r1_await[] = {60, 0, 0};
static const char *const r1_meta[] = {"", "{\"k\": \"v\"}", ""};
static const int64_t r2_start[] = {1000}, r2_end[] = {1600}, r2_call[] = {1}, r2_parent[] = {-1},
                     r2_thread[] = {0};
static const int64_t r3_start[] = {1100, 1300}, r3_end[] = {1200, 1500}, r3_call[] = {2, 3},
                     r3_parent[] = {1, 1}, r3_thread[] = {0, 0};

static gc_row full_row(int which, bool bad_thread)
{
    switch (which) {
    case 0:
        return (gc_row){.region = "outer",
                        .rank = 0,
                        .n = 2,
                        .start = r0_start,
                        .end = r0_end,
                        .opt = {[GC_CALL] = r0_call,
                                [GC_PARENT] = r0_parent,
                                [GC_THREAD] = r0_thread,
                                [GC_TASK] = r0_task,
                                [GC_AWAIT] = r0_await},
                        .meta = r0_meta,
                        .source_file = "app.py",
                        .source_line = 10,
                        .source_text = outer_text,
                        .tags_json = "[\"demo\", \"io\"]"};
    case 1:
        return (gc_row){.region = "inner",
                        .rank = 0,
                        .n = 3,
                        .start = r1_start,
                        .end = r1_end,
                        .opt = {[GC_GPU] = r1_gpu,
                                [GC_CALL] = r1_call,
                                [GC_PARENT] = r1_parent,
                                [GC_THREAD] = bad_thread ? r1_badthread : r1_thread,
                                [GC_TASK] = r1_task,
                                [GC_AWAIT] = r1_await},
                        .meta = r1_meta,
                        .source_file = "app.py",
                        .source_line = 20,
                        .tags_json = "[\"gpu\"]"};
    case 2:
        return (gc_row){
            .region = "outer",
            .rank = 1,
            .n = 1,
            .start = r2_start,
            .end = r2_end,
            .opt = {[GC_CALL] = r2_call, [GC_PARENT] = r2_parent, [GC_THREAD] = r2_thread},
            .source_file = "app.py",
            .source_line = 10,
            .source_text = outer_text,
            .tags_json = "[\"demo\", \"io\"]"};
    default:
        return (gc_row){
            .region = "solve",
            .rank = 1,
            .n = 2,
            .start = r3_start,
            .end = r3_end,
            .opt = {[GC_CALL] = r3_call, [GC_PARENT] = r3_parent, [GC_THREAD] = r3_thread},
            .source_file = "solver.py",
            .source_line = 7,
            .source_text = "def solve():\n    pass\n"};
    }
}

static const gc_thread full_threads[] = {
    {0, 0, 11, 101, 0, 0, -1, 700, "MainThread"},
    {0, 1, 12, 102, 1, 150, 900, 400, "worker-1"},
    {1, 0, 21, 201, 0, 0, -1, 800, "MainThread"},
};

static const gc_task full_tasks[] = {
    {0, 0, 0, 90, 700, 3, 250, 350, "task", "Task-1", "handler"},
};

static const gc_line_profile full_lines[] = {
    {0, "inner", "app.py", "inner", 20, 1e-9, "def inner():\n    x = 1\n    return x\n", 20, 2,
     I64(21, 22), I64(3, 3), (const double[]){150.0, 90.0}},
};

/* col3_callee.h5: outer's line profile is of inner, the function it calls
 * (lines 21, 22, outside outer's captured text at lines 10, 11). */
static const gc_line_profile callee_lines[] = {
    {0, "outer", "app.py", "inner", 20, 1e-9, "def inner():\n    x = 1\n    return x\n", 20, 2,
     I64(21, 22), I64(3, 3), (const double[]){150.0, 90.0}},
};

static const gc_perf full_perf[] = {
    {0, "outer", 2, 2, STRS("cycles", "instructions"), (const uint64_t[]){1000, 2500}},
    {1, "solve", 2, 1, STRS("cycles"), (const uint64_t[]){777}},
};

static const gen_kv full_meta[] = {
    {"hostname", GEN_STR, "fixhost", 0, 0},
    {"label", GEN_STR, "fixture", 0, 0},
    {"mpi_size", GEN_INT, NULL, 2, 0},
    {"start_time_ns", GEN_INT, NULL, 50, 0},
    {"scope_profiler_version", GEN_STR, "0.7.0", 0, 0},
    {"timestamp", GEN_STR, "2026-11-30T09:00:00+00:00", 0, 0},
};

typedef struct full_profile {
    gc_row rows[4];
    gc_profile p;
} full_profile;

static void full_init(full_profile *f, bool bad_thread, bool lanes)
{
    for (int i = 0; i < 4; i++) {
        f->rows[i] = full_row(i, bad_thread);
        if (!lanes)
            f->rows[i].opt[GC_THREAD] = f->rows[i].opt[GC_TASK] = f->rows[i].opt[GC_AWAIT] = NULL;
    }
    f->p = (gc_profile){.rows = f->rows,
                        .nrows = 4,
                        .meta = full_meta,
                        .nmeta = COUNT(full_meta),
                        .lines = full_lines,
                        .nlines = COUNT(full_lines),
                        .perf = full_perf,
                        .nperf = COUNT(full_perf)};
    if (lanes) {
        f->p.threads = full_threads, f->p.nthreads = COUNT(full_threads);
        f->p.tasks = full_tasks, f->p.ntasks = COUNT(full_tasks);
    }
}

static char *join(const char *dir, const char *file)
{
    size_t len = strlen(dir) + strlen(file) + 2;
    char *p = gen_alloc(len, 1);
    snprintf(p, len, "%s/%s", dir, file);
    return p;
}

static void write_full(const char *dir, const char *file, gc_opts o, bool bad, bool lanes)
{
    full_profile f;
    full_init(&f, bad, lanes);
    char *path = join(dir, file);
    gc_write(path, &f.p, &o);
    free(path);
}

/* ---------------------------------------------------------- others */

static void write_callee(const char *dir)
{
    full_profile f;
    full_init(&f, false, true);
    f.p.lines = callee_lines;
    f.p.nlines = COUNT(callee_lines);
    char *path = join(dir, "col3_callee.h5");
    gc_write(path, &f.p, &(gc_opts){.timing = 3});
    free(path);
}

static void write_aggregate(const char *dir)
{
    static const gc_row rows[] = {
        {.region = "outer",
         .rank = 0,
         .agg_count = 2,
         .agg_total = 700,
         .agg_min = 300,
         .agg_max = 400,
         .agg_excl = 500},
        {.region = "inner",
         .rank = 0,
         .agg_count = 3,
         .agg_total = 250,
         .agg_min = 50,
         .agg_max = 100,
         .agg_excl = 250},
        {.region = "outer",
         .rank = 1,
         .agg_count = 1,
         .agg_total = 600,
         .agg_min = 600,
         .agg_max = 600,
         .agg_excl = 300},
        {.region = "solve",
         .rank = 1,
         .agg_count = 2,
         .agg_total = 300,
         .agg_min = 100,
         .agg_max = 200,
         .agg_excl = 300},
    };
    gc_profile p = {
        .rows = rows, .nrows = COUNT(rows), .meta = full_meta, .nmeta = COUNT(full_meta)};
    char *path = join(dir, "col3_aggregate.h5");
    gc_write(path, &p, &(gc_opts){.timing = 3, .aggregate = true});
    free(path);
}

static void write_noregion(const char *dir)
{
    gc_profile p = {.meta = full_meta,
                    .nmeta = COUNT(full_meta),
                    .lines = full_lines,
                    .nlines = COUNT(full_lines),
                    .perf = full_perf,
                    .nperf = COUNT(full_perf)};
    char *path = join(dir, "col3_noregion.h5");
    gc_write(path, &p, &(gc_opts){.timing = 3, .no_index = true});
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        gen_die("reopening %s", path);
    hid_t g = gen_group(f, "junk");
    gen_attr_str(g, "note", "not a region container");
    gen_close(g);
    gen_close(f);
    free(path);
}

/* One rank, a call id in one row only: the other row's is the writer's
 * sentinel -1.  The rank keeps its ids (a call graph where inner's call is a
 * root: outer's exclusive time is its whole 1000 ns, not 900 as nesting by
 * times would give), as the MPI run must too when the two rows are read by
 * different processes (tests/mpi.sh). */
static void write_mixed_ids(const char *dir)
{
    const gc_row rows[] = {
        {.region = "outer",
         .rank = 0,
         .n = 1,
         .start = I64(1000),
         .end = I64(2000),
         .opt = {[GC_CALL] = I64(0), [GC_PARENT] = I64(-1)}},
        {.region = "inner", .rank = 0, .n = 1, .start = I64(1100), .end = I64(1200)},
    };
    gc_profile p = {
        .rows = rows, .nrows = COUNT(rows), .meta = full_meta, .nmeta = COUNT(full_meta)};
    char *path = join(dir, "col3_mixed_ids.h5");
    gc_write(path, &p, &(gc_opts){.timing = 3});
    free(path);
}

/* Schema 3, call ids without parent ids: the rank is nested by its times. */
static void write_call_only(const char *dir)
{
    const gc_row rows[] = {
        {.region = "outer",
         .rank = 0,
         .n = 2,
         .start = I64(1000, 5000),
         .end = I64(4000, 9000),
         .opt = {[GC_CALL] = I64(7, 9)}},
        {.region = "inner", .rank = 0, .n = 2, .start = I64(1500, 6000), .end = I64(2500, 8000)},
    };
    gc_profile p = {
        .rows = rows, .nrows = COUNT(rows), .meta = full_meta, .nmeta = COUNT(full_meta)};
    char *path = join(dir, "col3_call_only.h5");
    gc_write(path, &p, &(gc_opts){.timing = 3});
    free(path);
}

/* C API: ranks 0, 1 and 3 of a 4-rank run; rank 2's file is missing. */
static void write_capi(const char *dir)
{
    full_profile f;
    full_init(&f, false, false);
    gc_row rows[5];
    memcpy(rows, f.rows, sizeof f.rows);
    rows[4] = (gc_row){.region = "outer",
                       .rank = 3,
                       .n = 1,
                       .start = I64(2000),
                       .end = I64(2500),
                       .source_file = "app.c",
                       .source_line = 12};
    gc_profile p = {.rows = rows, .nrows = 5, .meta = full_meta, .nmeta = COUNT(full_meta)};
    char *prefix = join(dir, "capi");
    gc_write_capi(prefix, &p, 2);
    free(prefix);
}

/* Schema-1 legacy layout: one rank, calls of two threads that overlap partly. */
static void write_legacy_threads2(const char *dir)
{
    char *path = join(dir, "legacy_threads2.h5");
    hid_t f = gen_file_create(path);
    gen_metadata(
        f, (const gen_kv[]){{"hostname", GEN_STR, "vm", 0, 0}, {"mpi_size", GEN_INT, NULL, 1, 0}},
        2);
    hid_t r0 = gen_rank(f, 0);
    gen_close(gen_region(r0, "task",
                         &(gen_cols){.n = 3, .start = I64(0, 60, 200), .end = I64(100, 160, 300)}));
    gen_close(gen_region(
        r0, "step",
        &(gen_cols){.n = 4, .start = I64(10, 50, 70, 210), .end = I64(40, 90, 150, 290)}));
    gen_close(r0);
    gen_close(f);
    free(path);
}

void scen_fixtures_col(const char *dir)
{
    write_full(dir, "col3_full.h5", (gc_opts){.timing = 3}, false, true);
    write_full(dir, "col2_full.h5", (gc_opts){.timing = 2, .no_event_meta = true}, false, true);
    write_full(dir, "col3_schema4.h5", (gc_opts){.schema = 4, .timing = 3}, false, true);
    write_full(dir, "col3_nofilter.h5", (gc_opts){.timing = 3, .lzf_col = "gpu_durations"}, false,
               true);
    /* col3_full compressed as hdf5_compression="lzf" and "zstd" write it (tests/filters.sh). */
    write_full(dir, "col3_lzf.h5", (gc_opts){.timing = 3, .event_filter = 32000}, false, true);
    write_full(dir, "col3_zstd.h5", (gc_opts){.timing = 3, .event_filter = 32015}, false, true);
    write_full(dir, "col3_truncated.h5", (gc_opts){.timing = 3, .fault = GC_FAULT_TRUNCATE}, false,
               true);
    write_full(dir, "col3_overlap.h5", (gc_opts){.timing = 3, .fault = GC_FAULT_OVERLAP}, false,
               true);
    write_full(dir, "col3_pastend.h5", (gc_opts){.timing = 3, .fault = GC_FAULT_PASTEND}, false,
               true);
    write_full(dir, "col3_badthread.h5", (gc_opts){.timing = 3}, true, true);
    write_full(dir, "col3_fixedstr.h5",
               (gc_opts){.timing = 3,
                         .fixed_strings = true,
                         .wide_index = true,
                         .fixed_size = true,
                         .chunked = true,
                         .deflate = 4,
                         .shuffle = true,
                         .chunk = 4},
               false, false);
    write_aggregate(dir);
    write_callee(dir);
    write_noregion(dir);
    write_capi(dir);
    write_legacy_threads2(dir);
    write_mixed_ids(dir);
    write_call_only(dir);
    scen_expected_set(dir);
}
