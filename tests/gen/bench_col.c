/* bench_col: `svgen bench-schema3 PATH --calls N [--gzip] [--chunk C] [--json] [--flat]`,
 * the schema-3 benchmark input (--json: the same calls as a JSON profile,
 * gzip'd with --gzip): one rank, 5 nested regions (main > step > {assemble,
 * solve > precond x2}), summary_statistics and exclusive totals, event
 * columns chunked as h5py chunks them, or C elements a chunk (the writer's
 * appends of a large run: 1,024), gzip: deflate 4 + shuffle, as the
 * writer's "auto" compression.  Measured: 10M calls 0.6 s, 330 MB of
 * memory, a 160 MB file; 100M calls 20 s, 3.2 GB, 1.6 GB.
 *
 * --flat: one region "tick" of N calls of 1000 ns, one every 1500 ns, deflate 9 +
 * shuffle: constant columns that compress about 1000:1, the most
 * compressible file the writer makes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_columnar.h"
#include "gen_json.h"
#include "scenarios.h"

enum { B_MAIN, B_STEP, B_ASSEMBLE, B_SOLVE, B_PRECOND, B_COUNT };
static const char *const bench_names[B_COUNT] = {"main", "step", "assemble", "solve", "precond"};

typedef struct bench_col {
    int64_t *start, *end;
    size_t n;
    int64_t excl;
} bench_col;

static void push(bench_col *c, int64_t s, int64_t e, int64_t excl)
{
    c->start[c->n] = s;
    c->end[c->n++] = e;
    c->excl += excl;
}

/* One step with NPRE preconditioner calls; returns its end. */
static int64_t bench_step(bench_col *c, int64_t t, size_t npre, gen_rng *rng)
{
    int64_t s0 = t, children = 0;
    t += 200;
    int64_t a = gen_rng_range(rng, 3000, 5000);
    push(&c[B_ASSEMBLE], t, t + a, a);
    t += a + 100;
    int64_t solve0 = t, pre = 0;
    t += 50;
    for (size_t i = 0; i < npre; i++) {
        int64_t p = gen_rng_range(rng, 800, 1600);
        push(&c[B_PRECOND], t, t + p, p);
        pre += p;
        t += p + 40;
    }
    push(&c[B_SOLVE], solve0, t, t - solve0 - pre);
    children = a + (t - solve0);
    t += 100;
    push(&c[B_STEP], s0, t, t - s0 - children);
    return t + 300;
}

/* --flat: one region's calls, evenly spaced, chunks of 64 Ki calls at most. */
static void flat_write(const char *path, size_t ncalls, size_t chunk)
{
    int64_t *start = gen_alloc(ncalls, sizeof(int64_t));
    int64_t *end = gen_alloc(ncalls, sizeof(int64_t));
    int64_t t0 = 5000000000000LL;
    for (size_t i = 0; i < ncalls; i++) {
        start[i] = t0 + (int64_t)i * 1500;
        end[i] = start[i] + 1000;
    }
    gc_row row = {.region = "tick", .rank = 0, .n = ncalls, .start = start, .end = end};
    const gen_kv meta[] = {
        {"hostname", GEN_STR, "bench-01", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.7.1", 0, 0},
        {"start_time_ns", GEN_INT, NULL, t0, 0},
        {"mpi_size", GEN_INT, NULL, 1, 0},
        {"svgen_scenario", GEN_STR, "bench-schema3 --flat", 0, 0},
    };
    gc_profile p = {.rows = &row, .nrows = 1, .meta = meta, .nmeta = 5};
    gc_opts o = {.timing = 3,
                 .chunked = true,
                 .chunk = chunk ? chunk : (ncalls < 65536 ? ncalls : 65536),
                 .deflate = 9,
                 .shuffle = true};
    gc_write(path, &p, &o);
    free(start);
    free(end);
}

static void bench_write(const char *path, size_t ncalls, bool gzip, size_t chunk, bool json)
{
    size_t nsteps = (ncalls - 1) / 5, extra = (ncalls - 1) % 5;
    size_t cap[B_COUNT] = {1, nsteps, nsteps, nsteps, 2 * nsteps + extra};
    bench_col c[B_COUNT] = {{0}};
    for (int k = 0; k < B_COUNT; k++) {
        c[k].start = gen_alloc(cap[k], sizeof(int64_t));
        c[k].end = gen_alloc(cap[k], sizeof(int64_t));
    }
    gen_rng rng = {0xbe5c3};
    int64_t t0 = 5000000000000LL, t = t0 + 1000, steps = 0;
    for (size_t s = 0; s < nsteps; s++) {
        int64_t s0 = t;
        t = bench_step(c, t, 2 + (s + 1 == nsteps ? extra : 0), &rng);
        steps += c[B_STEP].end[s] - s0;
    }
    push(&c[B_MAIN], t0, t + 1000, t + 1000 - t0 - steps);
    gc_row rows[B_COUNT];
    int64_t excl[B_COUNT];
    for (int k = 0; k < B_COUNT; k++) {
        rows[k] = (gc_row){.region = bench_names[k],
                           .rank = 0,
                           .n = c[k].n,
                           .start = c[k].start,
                           .end = c[k].end,
                           .source_file = "bench.py",
                           .source_line = 10 + k};
        excl[k] = c[k].excl;
    }
    const gen_kv meta[] = {
        {"hostname", GEN_STR, "bench-01", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.7.1", 0, 0},
        {"timestamp", GEN_STR, "2026-11-30T09:00:00+00:00", 0, 0},
        {"start_time_ns", GEN_INT, NULL, t0, 0},
        {"mpi_size", GEN_INT, NULL, 1, 0},
        {"svgen_scenario", GEN_STR, gzip ? "bench-schema3 --gzip" : "bench-schema3", 0, 0},
    };
    gc_profile p = {.rows = rows, .nrows = B_COUNT, .meta = meta, .nmeta = 6};
    gc_opts o = {.timing = 3,
                 .chunked = true,
                 .chunk = chunk ? chunk : gen_guess_chunk(ncalls, 8),
                 .deflate = gzip ? 4 : 0,
                 .shuffle = gzip,
                 .excl = excl};
    if (json)
        gj_write(path, &p, &(gj_opts){.gzip = gzip, .excl = excl});
    else
        gc_write(path, &p, &o);
    for (int k = 0; k < B_COUNT; k++) {
        free(c[k].start);
        free(c[k].end);
    }
}

int scen_bench_schema3_main(int argc, char **argv)
{
    const char *path = NULL;
    long long calls = -1;
    bool gzip = false, json = false, flat = false;
    long long chunk = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--gzip") == 0) {
            gzip = true;
        } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
            char *end = NULL;
            errno = 0;
            chunk = strtoll(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || chunk < 1 || chunk > 100000000)
                calls = -2;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--flat") == 0) {
            flat = true;
        } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
            char *end = NULL;
            errno = 0;
            calls = strtoll(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || calls < 6 || calls > 1000000000)
                calls = -2;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            calls = -2;
        }
    }
    if (!path || calls < 0 || (flat && (gzip || json))) {
        fputs("usage: svgen bench-schema3 PATH --calls N [--gzip] [--chunk C] [--json | --flat]  "
              "(6 <= N <= 1e9)\n",
              stderr);
        return 2;
    }
    if (flat)
        flat_write(path, (size_t)calls, (size_t)chunk);
    else
        bench_write(path, (size_t)calls, gzip, (size_t)chunk, json);
    return 0;
}
