/* scenarios: large and adversarial profiles for benchmarks and robustness
 * tests (legacy, extended, many-regions, deep, cycle-long, hostile).
 *
 * Columns are built in memory and each is written with one H5Dwrite.  They
 * are chunked with unlimited max dims and h5py's guessed chunk size (see
 * gen.c: e.g. 9766 elements for a 10M-element column), exactly as h5py's
 * create_dataset(data=..., maxshape=(None,)) would write them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "scenarios.h"

#define BASE_NS 5000000000000LL

static int64_t *i64s(size_t n)
{
    return gen_alloc(n, sizeof(int64_t));
}

static void big_metadata(hid_t file, int64_t mpi_size, const char *scenario)
{
    const gen_kv kv[] = {
        {"hostname", GEN_STR, "bench-01", 0, 0},
        {"platform", GEN_STR, "Linux-6.1.0-18-amd64-x86_64-with-glibc2.36", 0, 0},
        {"python_version", GEN_STR, "3.11.2", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.3.0", 0, 0},
        {"timestamp", GEN_STR, "2026-11-29T09:00:00.000000", 0, 0},
        {"mpi_size", GEN_INT, NULL, mpi_size, 0},
        {"omp_num_threads", GEN_INT, NULL, 4, 0},
        {"total_cores", GEN_INT, NULL, 16, 0},
        {"svgen_scenario", GEN_STR, scenario, 0, 0},
    };
    gen_metadata(file, kv, sizeof kv / sizeof kv[0]);
}

/* ----------------------------------------------------------- legacy */

/* Only start/end per region, filled as the profiler appends them. */
typedef struct legacy_col {
    const char *name;
    int64_t *start, *end;
    size_t n;
} legacy_col;

enum { L_MAIN, L_STEP, L_ASSEMBLE, L_SOLVE, L_PRECOND, L_COUNT };

static void legacy_push(legacy_col *c, int64_t start, int64_t end)
{
    c->start[c->n] = start;
    c->end[c->n++] = end;
}

/* One step: step > {assemble, solve > NPRE x precond}; returns its end. */
static int64_t legacy_step(legacy_col *cols, int64_t t, size_t npre, gen_rng *rng)
{
    int64_t s0 = t;
    t += 200;
    int64_t a = gen_rng_range(rng, 3000, 5000);
    legacy_push(&cols[L_ASSEMBLE], t, t + a);
    t += a + 100;
    int64_t solve0 = t;
    t += 50;
    for (size_t i = 0; i < npre; i++) {
        int64_t p = gen_rng_range(rng, 800, 1600);
        legacy_push(&cols[L_PRECOND], t, t + p);
        t += p + 40;
    }
    legacy_push(&cols[L_SOLVE], solve0, t);
    t += 100;
    legacy_push(&cols[L_STEP], s0, t);
    return t + 300;
}

void scen_legacy(const char *path, const int64_t *nums)
{
    size_t ncalls = (size_t)nums[0]; /* >= 6: main + one whole step */
    size_t nsteps = (ncalls - 1) / 5;
    size_t extra = (ncalls - 1) % 5; /* given to the last step's solve */
    legacy_col cols[L_COUNT] = {{.name = "main"},
                                {.name = "step"},
                                {.name = "assemble"},
                                {.name = "solve"},
                                {.name = "precond"}};
    size_t cap[L_COUNT] = {1, nsteps, nsteps, nsteps, 2 * nsteps + extra};
    for (int r = 0; r < L_COUNT; r++) {
        cols[r].start = i64s(cap[r]);
        cols[r].end = i64s(cap[r]);
    }
    gen_rng rng = {42};
    int64_t t = BASE_NS + 1000;
    for (size_t s = 0; s < nsteps; s++)
        t = legacy_step(cols, t, 2 + (s + 1 == nsteps ? extra : 0), &rng);
    legacy_push(&cols[L_MAIN], BASE_NS, t + 1000);

    hid_t file = gen_file_create(path);
    big_metadata(file, 1, "legacy");
    hid_t rank = gen_rank(file, 0);
    for (int r = 0; r < L_COUNT; r++) {
        gen_close(
            gen_region(rank, cols[r].name,
                       &(gen_cols){.n = cols[r].n, .start = cols[r].start, .end = cols[r].end}));
        free(cols[r].start);
        free(cols[r].end);
    }
    gen_close(rank);
    gen_close(file);
}

/* --------------------------------------------------------- extended */

/* Per rank: 4 threads; each runs iterations of
 * iteration > {compute, io/read, kernel}.  Thread 0 is an asyncio loop whose
 * iterations belong to 8 tasks in turn and await their reads. */
enum { X_ITER, X_COMPUTE, X_READ, X_KERNEL, X_COUNT };
enum { X_THREADS = 4, X_TASKS = 8, X_COLS = 7 };

static const char *const x_region_names[X_COUNT] = {"iteration", "compute", "io/read", "kernel"};

typedef struct x_region {
    size_t n;
    int64_t *col[X_COLS]; /* start end call parent thread task await; gpu below */
    int64_t *gpu;
    const char **meta;
    char (*meta_pool)[32];
    size_t npool;
} x_region;

static void x_alloc(x_region *r, size_t cap)
{
    for (int k = 0; k < X_COLS; k++)
        r->col[k] = i64s(cap);
    r->gpu = i64s(cap);
    r->meta = gen_alloc(cap, sizeof(char *));
    r->meta_pool = gen_alloc(cap / 1000 + 1, sizeof *r->meta_pool);
}

static void x_free(x_region *r)
{
    for (int k = 0; k < X_COLS; k++)
        free(r->col[k]);
    free(r->gpu);
    free(r->meta);
    free(r->meta_pool);
}

typedef struct x_call {
    int64_t start, end, parent;
    int thread, task;
    int64_t await_ns, gpu;
} x_call;

/* Append a call; returns its id (unique within the rank). */
static int64_t x_push(x_region *r, int64_t *next_id, const x_call *c)
{
    size_t i = r->n++;
    int64_t id = (*next_id)++;
    int64_t row[X_COLS] = {c->start, c->end, id, c->parent, c->thread, c->task, c->await_ns};
    for (int k = 0; k < X_COLS; k++)
        r->col[k][i] = row[k];
    r->gpu[i] = c->gpu;
    r->meta[i] = "";
    if (i % 1000 == 0) { /* event metadata on a few calls only: strings are costly */
        char *m = r->meta_pool[r->npool++];
        snprintf(m, sizeof r->meta_pool[0], "{\"i\": %lld}", (long long)id);
        r->meta[i] = m;
    }
    return id;
}

/* One iteration on THREAD at time T with at most BUDGET calls; returns the
 * number of calls made and advances *T. */
static size_t x_iteration(x_region *regs, int64_t *next_id, int thread, int64_t iter, int64_t *t,
                          size_t budget, gen_rng *rng)
{
    bool loop = thread == 0;
    int task = loop ? (int)(iter % X_TASKS) : -1;
    int64_t c = gen_rng_range(rng, 2000, 6000), rd = gen_rng_range(rng, 1000, 9000);
    int64_t k = gen_rng_range(rng, 1500, 3000), s = *t;
    int64_t end = s + 100 + c + 50 + rd + 50 + k + 100;
    x_call it = {s, end, -1, thread, task, loop ? rd : 0, -1};
    int64_t id = x_push(&regs[X_ITER], next_id, &it);
    x_call kids[3] = {
        {s + 100, s + 100 + c, id, thread, task, 0, -1},
        {s + 150 + c, s + 150 + c + rd, id, thread, task, loop ? rd * 9 / 10 : 0, -1},
        {s + 200 + c + rd, s + 200 + c + rd + k, id, thread, task, 0, iter % 50 ? k * 7 / 10 : -1},
    };
    size_t made = 1;
    for (int i = 0; i < 3 && made < budget; i++, made++)
        x_push(&regs[X_COMPUTE + i], next_id, &kids[i]);
    *t = end + gen_rng_range(rng, 200, 800);
    return made;
}

static void x_write_tables(hid_t rank, int r)
{
    const char *const threads[X_THREADS] = {"MainThread", "ThreadPoolExecutor-0_0",
                                            "ThreadPoolExecutor-0_1", "io-worker"};
    int64_t ident[X_THREADS], native[X_THREADS], loop[X_TASKS];
    char names[X_TASKS][32];
    const char *task_names[X_TASKS];
    for (int i = 0; i < X_THREADS; i++) {
        ident[i] = 140000000000000LL + r * 1000000LL + i * 4096;
        native[i] = 7000 + r * 100 + i;
    }
    for (int i = 0; i < X_TASKS; i++) {
        snprintf(names[i], sizeof names[i], "Task-%d worker", i + 1);
        task_names[i] = names[i];
        loop[i] = 0;
    }
    gen_thread_table(rank, threads, ident, native, X_THREADS);
    gen_task_table(rank, task_names, loop, X_TASKS);
}

static void x_write_rank(hid_t file, int r, size_t ncalls)
{
    x_region regs[X_COUNT] = {{0}};
    for (int i = 0; i < X_COUNT; i++)
        x_alloc(&regs[i], ncalls / 4 + 2);
    gen_rng rng = {1000 + (uint64_t)r};
    int64_t next_id = 1, t[X_THREADS];
    for (int th = 0; th < X_THREADS; th++)
        t[th] = BASE_NS + r * 5000 + th * 1700;
    for (int64_t iter = 0; ncalls > 0; iter++)
        for (int th = 0; th < X_THREADS && ncalls > 0; th++)
            ncalls -= x_iteration(regs, &next_id, th, iter, &t[th], ncalls, &rng);

    hid_t rank = gen_rank(file, r);
    x_write_tables(rank, r);
    for (int i = 0; i < X_COUNT; i++) {
        x_region *g = &regs[i];
        gen_cols cols = {.n = g->n,
                         .start = g->col[0],
                         .end = g->col[1],
                         .call_ids = g->col[2],
                         .parent_ids = g->col[3],
                         .thread_ids = g->col[4],
                         .task_ids = g->col[5],
                         .await_times = g->col[6],
                         .gpu_durations = g->gpu,
                         .event_metadata = g->meta};
        gen_close(gen_region(rank, x_region_names[i], &cols));
        x_free(g);
    }
    gen_close(rank);
}

void scen_extended(const char *path, const int64_t *nums)
{
    size_t total = (size_t)nums[0];
    hid_t file = gen_file_create(path);
    big_metadata(file, 2, "extended");
    x_write_rank(file, 0, total - total / 2);
    x_write_rank(file, 1, total / 2);
    gen_close(file);
}

/* ----------------------------------------------------- many-regions */

void scen_many_regions(const char *path, const int64_t *nums)
{
    size_t nregions = (size_t)nums[0], per = (size_t)nums[1];
    int64_t *start = i64s(per), *end = i64s(per);
    hid_t file = gen_file_create(path);
    big_metadata(file, 1, "many-regions");
    hid_t rank = gen_rank(file, 0);
    int64_t t = BASE_NS;
    for (size_t r = 0; r < nregions; r++) {
        for (size_t j = 0; j < per; j++) {
            start[j] = t;
            end[j] = t + 500 + (int64_t)((r * 7 + j * 13) % 400);
            t = end[j] + 100;
        }
        char name[64];
        snprintf(name, sizeof name, "pkg%02zu.module_%zu.function_%05zu", r % 37, r % 101, r);
        gen_close(gen_region(rank, name, &(gen_cols){.n = per, .start = start, .end = end}));
    }
    gen_close(rank);
    gen_close(file);
    free(start);
    free(end);
}

/* ---------------------------------------------------- deep / cycles */

/* N calls of one region, each nested in time in the previous one
 * (start i, end 2N - i); call i has id i + 1 and parent PARENT(i). */
static void chain(const char *path, const char *region, size_t n, bool cycle)
{
    int64_t *start = i64s(n), *end = i64s(n), *ids = i64s(n), *parents = i64s(n),
            *threads = i64s(n);
    for (size_t i = 0; i < n; i++) {
        start[i] = BASE_NS + (int64_t)i * 10;
        end[i] = BASE_NS + (int64_t)(2 * n - i) * 10;
        ids[i] = (int64_t)i + 1;
        parents[i] = cycle ? (int64_t)((i + 1) % n) + 1 : (int64_t)i; /* i == 0: -1 below */
    }
    if (!cycle)
        parents[0] = -1;
    hid_t file = gen_file_create(path);
    big_metadata(file, 1, cycle ? "cycle-long" : "deep");
    hid_t rank = gen_rank(file, 0);
    gen_thread_table(rank, (const char *const[]){"MainThread"},
                     (const int64_t[]){140000000000000LL}, (const int64_t[]){7000}, 1);
    gen_close(gen_region(rank, region,
                         &(gen_cols){.n = n,
                                     .start = start,
                                     .end = end,
                                     .call_ids = ids,
                                     .parent_ids = parents,
                                     .thread_ids = threads}));
    gen_close(rank);
    gen_close(file);
    free(start);
    free(end);
    free(ids);
    free(parents);
    free(threads);
}

void scen_deep(const char *path, const int64_t *nums)
{
    chain(path, "rec", (size_t)nums[0], false);
}

void scen_cycle_long(const char *path, const int64_t *nums)
{
    chain(path, "cyc", (size_t)nums[0], true);
}

/* ---------------------------------------------------------- hostile */

/* Fragments a terminal must never interpret; names are built from them. */
static const char *const hostile_bits[] = {
    "\x1b[31m",               /* CSI SGR */
    "\x1b[2J\x1b[H",          /* clear screen, home */
    "\x1b]0;pwned\x07",       /* OSC: set window title */
    "\x1b]52;c;SGVsbG8=\x07", /* OSC 52: clipboard write */
    "\x1b]8;;id=1;x\x1b\\",   /* OSC 8 hyperlink with ST */
    "\x9b"
    "31m", /* raw C1 CSI */
    "\xc2\x9b"
    "1m",       /* C1 CSI encoded as UTF-8 */
    "\xc2\x85", /* NEL */
    "\r",
    "\n",
    "\t",
    "\x07",
    "\x08\x08",
    "\x7f",
    "\xff\xfe",     /* invalid UTF-8 */
    "\xc3(",        /* truncated sequence */
    "\xe2\x82",     /* truncated 3-byte */
    "\xed\xa0\x80", /* UTF-16 surrogate */
    "\xc0\xaf",     /* overlong '/' */
    "数据处理",     /* wide CJK */
    "ｆｕｌｌ",     /* fullwidth */
    "a\xe2\x80\x8b"
    "b",                /* zero-width space */
    "\xe2\x80\x8d",     /* lone ZWJ */
    "\xf0\x9f\x94\xa5", /* emoji */
    "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7", /* ZWJ family */
    "e\xcc\x81\xcc\x81\xcc\x81", /* stacked combining marks */
    "\xe2\x80\xae"
    "evil",      /* right-to-left override */
    "%s%n%x",    /* printf formats */
    "\\x1b[31m", /* escaped text that only looks like ESC */
    " ",
    "plain",
};
#define NBITS (sizeof hostile_bits / sizeof hostile_bits[0])

/* A unique name for region K: three fragments and "#K". */
static void hostile_name(size_t k, char *out, size_t cap)
{
    size_t a = k % NBITS, b = (k / NBITS + 7 * k) % NBITS, c = (k * 13 + 5) % NBITS;
    snprintf(out, cap, "%s%s%s#%zu", hostile_bits[a], hostile_bits[b], hostile_bits[c], k);
}

static void hostile_metadata(hid_t file)
{
    hid_t g = gen_group(file, "metadata");
    gen_attr_int(g, "mpi_size", 1);
    for (size_t i = 0; i < NBITS; i++) {
        char key[64], value[256];
        snprintf(key, sizeof key, "k%02zu%s", i, hostile_bits[i]);
        snprintf(value, sizeof value, "v%s|%s|%s", hostile_bits[i], hostile_bits[(i + 3) % NBITS],
                 hostile_bits[(i + 11) % NBITS]);
        gen_attr_str(g, key, value);
    }
    gen_close(g);
}

static void hostile_region(hid_t rank, size_t k, int64_t t)
{
    char name[256], text[512], tag[128], meta[128];
    hostile_name(k, name, sizeof name);
    const char *bit = hostile_bits[(k + 1) % NBITS];
    snprintf(text, sizeof text, "with Region(\"%s\"):\n    run()  # %s\r\n\tdone%s\n", name, bit,
             hostile_bits[(k + 2) % NBITS]);
    snprintf(tag, sizeof tag, "tag%s", bit);
    snprintf(meta, sizeof meta, "{\"k\": \"%s\", \"esc\": \"\\u001b[31m\"}", bit);
    const char *metas[2] = {meta, ""};
    hid_t g = gen_region(rank, name,
                         &(gen_cols){.n = 2,
                                     .start = (const int64_t[]){t, t + 300},
                                     .end = (const int64_t[]){t + 200, t + 900},
                                     .thread_ids = (const int64_t[]){0, (int64_t)(k % 2)},
                                     .event_metadata = metas});
    gen_region_source(g, &(gen_source){bit, (int64_t)k + 1, text});
    gen_attr_strs(g, "tags", (const char *const[]){tag, bit, name}, 3);
    gen_close(g);
}

void scen_hostile(const char *path, const int64_t *nums)
{
    (void)nums;
    hid_t file = gen_file_create(path);
    hostile_metadata(file);
    hid_t rank = gen_rank(file, 0);
    gen_thread_table(rank,
                     (const char *const[]){"Main\x1b[5mThread", "\xff\x9b"
                                                                "2Jworker"},
                     (const int64_t[]){1, 2}, (const int64_t[]){101, 102}, 2);
    for (size_t k = 0; k < 1000; k++)
        hostile_region(rank, k, BASE_NS + (int64_t)k * 1000);
    gen_close(rank);
    gen_close(file);
}
