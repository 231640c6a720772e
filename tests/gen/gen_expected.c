/* gen_expected: a generated profile with its statistics computed here, by
 * the generator's own arithmetic (numpy's definitions: population std,
 * linear-interpolation percentiles; exclusive time from the explicit call
 * graph, gen_colexcl.c), written as the JSON that tests/expected_check.c
 * reads.  It gives test_expected an oracle that needs no data from outside
 * the repository.  Shares no code with the reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_columnar.h"
#include "scenarios.h"

#define EXP_RANKS 2
#define EXP_STEPS 60
#define EXP_SOLVES 4 /* per step */
/* Rows per rank: main, step, step/solve, io/write. */
#define EXP_ROWS 4

typedef struct exp_row_data {
    int64_t *start, *end, *call, *parent;
    size_t n;
} exp_row_data;

typedef struct exp_set {
    exp_row_data d[EXP_RANKS * EXP_ROWS];
    gc_row rows[EXP_RANKS * EXP_ROWS];
    gc_profile p;
} exp_set;

static void exp_push(exp_row_data *r, int64_t s, int64_t e, int64_t id, int64_t parent)
{
    r->start[r->n] = s;
    r->end[r->n] = e;
    r->call[r->n] = id;
    r->parent[r->n] = parent;
    r->n++;
}

static void exp_alloc(exp_row_data *r, size_t cap)
{
    r->start = gen_alloc(cap, sizeof(int64_t));
    r->end = gen_alloc(cap, sizeof(int64_t));
    r->call = gen_alloc(cap, sizeof(int64_t));
    r->parent = gen_alloc(cap, sizeof(int64_t));
    r->n = 0;
}

/* One rank: main > EXP_STEPS steps > EXP_SOLVES solves each, and an io/write
 * call after every fifth step; random lengths, some ties and gaps, every
 * call in start order, nested by ids. */
static void exp_rank(exp_set *x, int rank, gen_rng *rng)
{
    exp_row_data *main = &x->d[rank * EXP_ROWS], *step = main + 1, *solve = main + 2,
                 *io = main + 3;
    exp_alloc(main, 1);
    exp_alloc(step, EXP_STEPS);
    exp_alloc(solve, (size_t)EXP_STEPS * EXP_SOLVES);
    exp_alloc(io, EXP_STEPS);
    int64_t t = 1000 + rank * 137, id = 1;
    int64_t main_id = id++, main_start = t;
    for (int k = 0; k < EXP_STEPS; k++) {
        t += gen_rng_range(rng, 0, 50);
        int64_t step_id = id++, step_start = t, u = t + gen_rng_range(rng, 1, 20);
        for (int j = 0; j < EXP_SOLVES; j++) {
            int64_t len = gen_rng_range(rng, 1, 4000) * (j == 0 && k < 3 ? 5 : 1);
            exp_push(solve, u, u + len, id++, step_id);
            u += len + gen_rng_range(rng, 0, 30);
        }
        exp_push(step, step_start, u, step_id, main_id);
        t = u;
        if (k % 5 == 4) {
            int64_t len = gen_rng_range(rng, 100, 9000);
            exp_push(io, t, t + len, id++, main_id);
            t += len;
        }
    }
    exp_push(main, main_start, t + 10, main_id, -1);
    const char *names[EXP_ROWS] = {"main", "step", "step/solve", "io/write"};
    for (int i = 0; i < EXP_ROWS; i++) {
        exp_row_data *d = &x->d[rank * EXP_ROWS + i];
        gc_row *r = &x->rows[rank * EXP_ROWS + i];
        memset(r, 0, sizeof *r);
        r->region = names[i];
        r->rank = rank;
        r->n = d->n;
        r->start = d->start;
        r->end = d->end;
        r->opt[GC_CALL] = d->call;
        r->opt[GC_PARENT] = d->parent;
    }
}

static void exp_build(exp_set *x)
{
    gen_rng rng = {0x5eed5eedULL};
    for (int k = 0; k < EXP_RANKS; k++)
        exp_rank(x, k, &rng);
    x->p = (gc_profile){.rows = x->rows, .nrows = EXP_RANKS * EXP_ROWS};
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile(v, pct), v sorted, linear interpolation. */
static double exp_pct(const int64_t *v, size_t n, double pct)
{
    double h = (double)(n - 1) * pct / 100.0;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return (double)v[n - 1];
    return (double)v[lo] + (h - (double)lo) * (double)(v[lo + 1] - v[lo]);
}

static void exp_num(FILE *f, const char *key, double ns)
{
    fprintf(f, "  \"%s\": %.17g,\n", key, ns / 1e9);
}

static void exp_row_json(FILE *f, const gc_row *r, int64_t excl, bool last)
{
    int64_t *d = gen_alloc(r->n, sizeof *d);
    long double sum = 0, sq = 0;
    int64_t lo = r->start[0], hi = r->end[0];
    for (size_t i = 0; i < r->n; i++) {
        d[i] = r->end[i] - r->start[i];
        sum += d[i];
        lo = r->start[i] < lo ? r->start[i] : lo;
        hi = r->end[i] > hi ? r->end[i] : hi;
    }
    long double mean = sum / (long double)r->n;
    for (size_t i = 0; i < r->n; i++)
        sq += ((long double)d[i] - mean) * ((long double)d[i] - mean);
    int64_t first = d[0], last_d = d[r->n - 1];
    qsort(d, r->n, sizeof *d, cmp_i64);
    fprintf(f, " {\n  \"name\": \"%s\",\n  \"rank\": %d,\n", r->region, r->rank);
    fprintf(f, "  \"has_event_data\": true,\n  \"num_calls\": %zu,\n", r->n);
    exp_num(f, "total_duration", (double)sum);
    exp_num(f, "average_duration", (double)mean);
    exp_num(f, "min_duration", (double)d[0]);
    exp_num(f, "max_duration", (double)d[r->n - 1]);
    exp_num(f, "std_duration", (double)sqrtl(sq / (long double)r->n));
    exp_num(f, "first_duration", (double)first);
    exp_num(f, "last_duration", (double)last_d);
    exp_num(f, "p50_duration", exp_pct(d, r->n, 50));
    exp_num(f, "p95_duration", exp_pct(d, r->n, 95));
    exp_num(f, "p99_duration", exp_pct(d, r->n, 99));
    exp_num(f, "first_start_time", (double)lo);
    exp_num(f, "last_end_time", (double)hi);
    fprintf(f, "  \"total_exclusive_duration\": %.17g\n }%s\n", (double)excl / 1e9, last ? "" : ",");
    free(d);
}

static void exp_write_json(const char *path, const gc_profile *p)
{
    int64_t *excl = gen_alloc(p->nrows, sizeof *excl);
    gc_exclusive_totals(p, excl);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs("[\n", f);
    for (size_t i = 0; i < p->nrows; i++)
        exp_row_json(f, &p->rows[i], excl[i], i + 1 == p->nrows);
    fputs("]\n", f);
    if (fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    free(excl);
}

static char *exp_join(const char *dir, const char *file)
{
    size_t len = strlen(dir) + strlen(file) + 2;
    char *s = gen_alloc(len, 1);
    snprintf(s, len, "%s/%s", dir, file);
    return s;
}

/* The same calls in three storages, and their statistics once:
 * exp_s3.h5 (schema 3), exp_s2_gzip.h5 (schema 2, deflate + shuffle, odd
 * chunks), exp_s3_fixed.h5 (fixed-length strings, contiguous chunks of 7),
 * all described by exp.json. */
void scen_expected_set(const char *dir)
{
    exp_set *x = gen_alloc(1, sizeof *x);
    exp_build(x);
    const struct {
        const char *file;
        gc_opts o;
    } out[] = {
        {"exp_s3.h5", {.timing = 3}},
        {"exp_s2_gzip.h5", {.timing = 2, .deflate = 4, .shuffle = true, .chunk = 13}},
        {"exp_s3_fixed.h5",
         {.timing = 3, .fixed_strings = true, .wide_index = true, .chunked = true, .chunk = 7}},
    };
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
        char *path = exp_join(dir, out[i].file);
        gc_write(path, &x->p, &out[i].o);
        free(path);
    }
    char *js = exp_join(dir, "exp.json");
    exp_write_json(js, &x->p);
    free(js);
    for (size_t i = 0; i < EXP_RANKS * EXP_ROWS; i++) {
        free(x->d[i].start);
        free(x->d[i].end);
        free(x->d[i].call);
        free(x->d[i].parent);
    }
    free(x);
}
