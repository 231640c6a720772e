/* stream_gen: `svgen stream-mix PATH --calls N [--ranks R] [--threads] [--ids]
 * [--unsorted] [--late-unsorted] [--gzip] [--schema2] [--chunk C] [--bad-summary]`, a
 * columnar profile for the out-of-core tests (tests/stream.sh): per rank, top-level `main` calls
 * holding `step`, `io/write`, zero-length `tiny`, recursive `rec` (nested in
 * itself up to 4 deep), children that start with their parent (ties) and
 * `overlap` calls that end after their parent (partial overlaps: inferred
 * lanes); GPU (some -1) and await columns.  --threads adds thread_ids and a
 * thread table (two threads), --ids call and parent ids; --unsorted records
 * calls as scope-profiler does, when they end (a parent after its children:
 * rows out of start order), else in start order; --late-unsorted swaps the
 * last two `tiny` calls of each rank, so that its one row out of start order
 * shows only at the rank's end.  --bad-summary stores main's first start
 * on rank 0 1 ns early in summary_statistics (a stored statistic that is not the calls').
 * Deterministic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_columnar.h"
#include "scenarios.h"

enum { S_MAIN, S_STEP, S_IO, S_TINY, S_REC, S_OVERLAP, S_COUNT };
static const char *const s_names[S_COUNT] = {"main", "step", "io/write", "tiny", "rec", "overlap"};

typedef struct s_call {
    int64_t s, e, id, parent, thread, seq;
} s_call;

typedef struct s_reg {
    s_call *v;
    size_t n, cap;
} s_reg;

typedef struct s_gen {
    s_reg reg[S_COUNT];
    gen_rng rng;
    int64_t next_id, seq, thread;
    size_t left;
} s_gen;

static void add(s_gen *g, int k, int64_t s, int64_t e, int64_t id, int64_t parent)
{
    s_reg *r = &g->reg[k];
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v)
            abort();
    }
    r->v[r->n++] = (s_call){s, e, id, parent, g->thread, g->seq++};
    if (g->left)
        g->left--;
}

/* A call of region k starting at t under parent; returns its end. */
static int64_t call(s_gen *g, int k, int64_t t, int64_t parent, int depth)
{
    int64_t id = g->next_id++, s = t;
    if (k == S_TINY) {
        add(g, k, t, t, id, parent);
        return t;
    }
    /* children: start with the parent now and then (a tie) */
    t += gen_rng_range(&g->rng, 0, 3) == 0 ? 0 : gen_rng_range(&g->rng, 1, 50);
    int64_t kids = k == S_MAIN ? gen_rng_range(&g->rng, 2, 6)
                   : depth < 4 ? gen_rng_range(&g->rng, 0, 2)
                               : 0;
    for (int64_t i = 0; i < kids && g->left > 1; i++) {
        int64_t pick = gen_rng_range(&g->rng, 0, 9);
        int c = pick < 3 ? S_STEP : pick < 5 ? S_IO : pick < 7 ? S_TINY : S_REC;
        if (k == S_REC && pick >= 5)
            c = S_REC; /* recursion */
        t = call(g, c, t, id, depth + 1) + gen_rng_range(&g->rng, 0, 30);
    }
    int64_t e = t + gen_rng_range(&g->rng, 0, 400);
    if (k == S_MAIN && gen_rng_range(&g->rng, 0, 4) == 0 && g->left > 1) {
        /* starts inside this call, ends after it: not a child */
        int64_t os = e - gen_rng_range(&g->rng, 1, 20);
        add(g, S_OVERLAP, os, e + gen_rng_range(&g->rng, 1, 100), g->next_id++, -1);
    }
    add(g, k, s, e, id, parent);
    return e;
}

static int cmp_start(const void *a, const void *b)
{
    const s_call *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct s_opts {
    size_t calls;
    int ranks;
    bool threads, ids, unsorted, late, gzip, schema2, bad_summary;
    size_t chunk;
} s_opts;

static void s_write(const char *path, const s_opts *o)
{
    size_t nrows = (size_t)o->ranks * S_COUNT, k = 0;
    gc_row *rows = gen_alloc(nrows, sizeof *rows);
    int64_t **cols = gen_alloc(nrows * 8, sizeof *cols);
    s_gen *gens = gen_alloc((size_t)o->ranks, sizeof *gens);
    gc_thread th[64];
    size_t nth = 0;
    for (int rk = 0; rk < o->ranks; rk++) {
        s_gen *g = &gens[rk];
        g->rng.s = 0x5eed0 + (uint64_t)rk;
        g->left = o->calls / (size_t)o->ranks;
        int64_t t = 1000000 + rk * 7;
        for (int64_t top = 0; g->left > 1; top++) {
            g->thread = o->threads ? top % 2 : -1;
            t = call(g, S_MAIN, t, -1, 0) + gen_rng_range(&g->rng, 0, 100);
        }
        for (int j = 0; o->threads && j < 2 && nth < 64; j++)
            th[nth++] = (gc_thread){rk, j, 100 + j, 200 + j, 0, 0, -1, 0, j ? "Worker" : "Main"};
        for (int r = 0; r < S_COUNT; r++, k++) {
            s_reg *reg = &g->reg[r];
            if (!o->unsorted && reg->n)
                qsort(reg->v, reg->n, sizeof *reg->v, cmp_start);
            if (o->late && r == S_TINY && reg->n >= 2) { /* the last two swapped */
                s_call x = reg->v[reg->n - 1];
                reg->v[reg->n - 1] = reg->v[reg->n - 2];
                reg->v[reg->n - 2] = x;
            }
            int64_t **c = &cols[k * 8];
            for (int m = 0; m < 8; m++)
                c[m] = gen_alloc(reg->n ? reg->n : 1, sizeof(int64_t));
            for (size_t i = 0; i < reg->n; i++) {
                const s_call *x = &reg->v[i];
                c[0][i] = x->s;
                c[1][i] = x->e;
                c[2][i] = i % 3 == 0 ? -1 : (x->e - x->s) / 2; /* gpu */
                c[3][i] = x->id;
                c[4][i] = x->parent;
                c[5][i] = x->thread;
                c[6][i] = (x->e - x->s) / 3; /* await within [0, duration] */
            }
            rows[k] = (gc_row){.region = s_names[r],
                               .rank = rk,
                               .n = reg->n,
                               .start = c[0],
                               .end = c[1],
                               .source_file = "mix.py",
                               .source_line = 10 + r};
            rows[k].opt[GC_GPU] = c[2];
            rows[k].opt[GC_AWAIT] = c[6];
            if (o->ids) {
                rows[k].opt[GC_CALL] = c[3];
                rows[k].opt[GC_PARENT] = c[4];
            }
            if (o->threads)
                rows[k].opt[GC_THREAD] = c[5];
        }
    }
    const gen_kv meta[] = {{"hostname", GEN_STR, "mix-01", 0, 0},
                           {"mpi_size", GEN_INT, NULL, o->ranks, 0},
                           {"svgen_scenario", GEN_STR, "stream-mix", 0, 0}};
    gc_profile p = {
        .rows = rows, .nrows = nrows, .meta = meta, .nmeta = 3, .threads = th, .nthreads = nth};
    gc_opts go = {.timing = o->schema2 ? 2 : 3,
                  .chunked = true,
                  .chunk = o->chunk,
                  .deflate = o->gzip ? 4 : 0,
                  .shuffle = o->gzip,
                  .fault = o->bad_summary ? GC_FAULT_SUMSTART : GC_FAULT_NONE};
    gc_write(path, &p, &go);
    for (size_t i = 0; i < nrows * 8; i++)
        free(cols[i]);
    for (int rk = 0; rk < o->ranks; rk++)
        for (int r = 0; r < S_COUNT; r++)
            free(gens[rk].reg[r].v);
    free(cols);
    free(rows);
    free(gens);
}

static long long num(const char *s)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return errno || !*s || *end || v < 1 || v > 100000000 ? -1 : v;
}

int scen_stream_mix_main(int argc, char **argv)
{
    s_opts o = {10000, 1, false, false, false, false, false, false, false, 0};
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        long long v = 0;
        if (strcmp(argv[i], "--threads") == 0)
            o.threads = true;
        else if (strcmp(argv[i], "--ids") == 0)
            o.ids = true;
        else if (strcmp(argv[i], "--unsorted") == 0)
            o.unsorted = true;
        else if (strcmp(argv[i], "--late-unsorted") == 0)
            o.late = true;
        else if (strcmp(argv[i], "--gzip") == 0)
            o.gzip = true;
        else if (strcmp(argv[i], "--schema2") == 0)
            o.schema2 = true;
        else if (strcmp(argv[i], "--bad-summary") == 0)
            o.bad_summary = true;
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc && (v = num(argv[++i])) > 10)
            o.calls = (size_t)v;
        else if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc && (v = num(argv[++i])) > 0 &&
                 v <= 32)
            o.ranks = (int)v;
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc && (v = num(argv[++i])) > 0)
            o.chunk = (size_t)v;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "svgen: stream-mix: bad argument '%s' (try svgen --help)\n", argv[i]);
            return 2;
        }
    }
    if (!path) {
        fputs("svgen: stream-mix: missing PATH (try svgen --help)\n", stderr);
        return 2;
    }
    s_write(path, &o);
    return 0;
}
