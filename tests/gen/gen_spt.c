/* gen_spt: see gen_spt.h. */
#include "gen_spt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct spt_buf {
    unsigned char *b;
    size_t n, cap;
    bool be, oom;
} spt_buf;

static void put(spt_buf *s, const void *p, size_t n)
{
    if (s->oom)
        return;
    if (s->n + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->n + n)
            cap *= 2;
        unsigned char *b = realloc(s->b, cap);
        if (!b) {
            s->oom = true;
            return;
        }
        s->b = b;
        s->cap = cap;
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
}

/* An integer of k bytes in the trace's byte order. */
static void put_int(spt_buf *s, uint64_t v, size_t k)
{
    unsigned char b[8];
    for (size_t i = 0; i < k; i++)
        b[s->be ? k - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put(s, b, k);
}

static void put_str(spt_buf *s, const char *str)
{
    size_t n = str ? strlen(str) : 0;
    put_int(s, (uint32_t)n, 4);
    put(s, str ? str : "", n);
}

unsigned char *gen_spt_encode(const gen_spt *t, size_t *len)
{
    spt_buf s = {.be = t->big_endian};
    put(&s, "SCOPEPRF", 8);
    put_int(&s, (uint32_t)t->version, 4);
    put_int(&s, (uint32_t)t->rank, 4);
    put_int(&s, (uint64_t)t->nregions, 8);
    for (size_t i = 0; i < t->nregions; i++) {
        const gen_spt_region *r = &t->regions[i];
        put_str(&s, r->name);
        if (t->version == 2) {
            put_str(&s, r->source);
            put_int(&s, (uint32_t)r->line, 4);
        }
        put_int(&s, (uint64_t)r->n, 8);
        for (size_t k = 0; k < r->n; k++)
            put_int(&s, (uint64_t)r->start[k], 8);
        for (size_t k = 0; k < r->n; k++)
            put_int(&s, (uint64_t)r->end[k], 8);
    }
    if (s.oom) {
        free(s.b);
        return NULL;
    }
    *len = s.n;
    return s.b;
}

bool gen_spt_write_bytes(const char *path, const unsigned char *b, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return false;
    bool ok = fwrite(b, 1, len, fp) == len;
    return fclose(fp) == 0 && ok;
}

bool gen_spt_write(const char *path, const gen_spt *t)
{
    size_t len = 0;
    unsigned char *b = gen_spt_encode(t, &len);
    if (!b) {
        errno = ENOMEM;
        return false;
    }
    bool ok = gen_spt_write_bytes(path, b, len);
    free(b);
    return ok;
}

/* ------------------------------------------------------------ scenario */

enum { SC_MAIN, SC_STEP, SC_SOLVE, SC_RHS, SC_IO, SC_N };

typedef struct sc_cols {
    int64_t *start[SC_N], *end[SC_N];
    size_t n[SC_N];
} sc_cols;

static void sc_add(sc_cols *c, int k, int64_t s, int64_t e)
{
    c->start[k][c->n[k]] = s;
    c->end[k][c->n[k]] = e;
    c->n[k]++;
}

/* One rank's calls: steps of a solve (two rhs inside) and a checkpoint;
 * every call has whole nanoseconds, no two calls of a level overlap. */
static void sc_rank(sc_cols *c, int rank, int64_t ncalls)
{
    int64_t steps = ncalls > 6 ? (ncalls - 1) / 5 : 1;
    int64_t t = 1000000 + rank * 777;
    int64_t t0 = t;
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1);
    for (int64_t i = 0; i < steps; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t work = 200 + (int64_t)(x % 300) + (rank == 1 ? 150 : 0);
        int64_t s = t + 5;
        sc_add(c, SC_SOLVE, s + 10, s + 10 + work + 60);
        sc_add(c, SC_RHS, s + 20, s + 20 + work / 2);
        sc_add(c, SC_RHS, s + 30 + work / 2, s + 40 + work);
        sc_add(c, SC_IO, s + 80 + work, s + 95 + work);
        sc_add(c, SC_STEP, s, s + 100 + work);
        t = s + 100 + work + 3;
    }
    sc_add(c, SC_MAIN, t0, t + 2);
}

void gen_spt_scenario(const char *dir, const int64_t *nums)
{
    static const char *const names[SC_N] = {"main", "step", "solve", "rhs", "io/checkpoint"};
    static const int32_t lines[SC_N] = {12, 30, 44, 61, -1};
    int64_t ncalls = nums[0];
    int64_t steps = ncalls > 6 ? (ncalls - 1) / 5 : 1;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    for (int rank = 0; rank < 4; rank++) {
        sc_cols c = {0};
        for (int k = 0; k < SC_N; k++) {
            size_t cap = (size_t)steps * (k == SC_RHS ? 2 : 1) + 1;
            c.start[k] = malloc(cap * sizeof(int64_t));
            c.end[k] = malloc(cap * sizeof(int64_t));
            if (!c.start[k] || !c.end[k]) {
                fputs("svgen spt: out of memory\n", stderr);
                exit(1);
            }
        }
        sc_rank(&c, rank, ncalls);
        gen_spt_region r[SC_N];
        for (int k = 0; k < SC_N; k++)
            r[k] = (gen_spt_region){names[k],   k == SC_IO ? NULL : "src/solver.c",
                                    lines[k],   c.n[k],
                                    c.start[k], c.end[k]};
        gen_spt t = {rank < 2 ? 2 : 1, rank % 2 == 1, rank, r, SC_N};
        char path[4096];
        snprintf(path, sizeof path, "%s/run_rank%05d.spt", dir, rank);
        if (!gen_spt_write(path, &t)) {
            perror(path);
            exit(1);
        }
        for (int k = 0; k < SC_N; k++) {
            free(c.start[k]);
            free(c.end[k]);
        }
    }
}
