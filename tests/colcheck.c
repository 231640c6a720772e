/* colcheck: checks svgen's columnar files with plain libhdf5, sharing no code
 * with the generator or the reader (tests/gen_columnar.sh).
 *
 *   colcheck check FILE         the file's own invariants: the index is a
 *                               non-overlapping cover of [0, N); schema-3
 *                               deltas decode to ends >= starts; every
 *                               summary_statistics field and exclusive total
 *                               equals what this program computes from the
 *                               decoded columns; event_metadata holds one
 *                               object per call; lane ids lie in the tables.
 *   colcheck same A B           A and B (schema 2 and 3) decode to the same
 *                               calls, row by row.
 *   colcheck legacy COL LEG     every (rank, region) of COL holds the same
 *                               (start, end) pairs as LEG's schema-1 region.
 *   colcheck dump FILE          one line per call: rank region start end.
 *   colcheck schema FILE        the scope_profiler_schema attribute (1 if absent).
 *   colcheck agg AGG COL        AGG's aggregate_* columns are the counts, totals,
 *                               minimums, maximums and exclusive totals of
 *                               COL's rows (same rank and region name).
 *
 * Prints "FAIL: ..." lines and exits 1 on any mismatch. */
#include <hdf5.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("colcheck: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xcalloc(n, 1);
    memcpy(p, s, n);
    return p;
}

/* ------------------------------------------------------------ reading */

static bool exists(hid_t f, const char *path)
{
    return H5Lexists(f, path, H5P_DEFAULT) > 0;
}

/* A 1-D dataset read as int64 (any integer type); NULL when absent. */
static int64_t *read_i64(hid_t f, const char *path, size_t *n)
{
    *n = 0;
    if (!exists(f, path))
        return NULL;
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    int64_t *v = xcalloc((size_t)np, sizeof *v);
    if (np > 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        FAIL("%s: unreadable", path);
    H5Sclose(s);
    H5Dclose(d);
    *n = (size_t)np;
    return v;
}

/* Strings (vlen or fixed) as NUL-terminated copies. */
static char **read_strs(hid_t f, const char *path, size_t *n)
{
    *n = 0;
    if (!exists(f, path))
        return NULL;
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t s = H5Dget_space(d), ft = H5Dget_type(d);
    size_t np = (size_t)H5Sget_simple_extent_npoints(s);
    char **out = xcalloc(np, sizeof *out);
    if (H5Tis_variable_str(ft) > 0) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5T_CSET_UTF8);
        char **raw = xcalloc(np, sizeof *raw);
        if (np)
            H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw);
        for (size_t i = 0; i < np; i++)
            out[i] = xstrdup(raw[i] ? raw[i] : "");
        H5Dvlen_reclaim(mt, s, H5P_DEFAULT, raw);
        free(raw);
        H5Tclose(mt);
    } else {
        size_t w = H5Tget_size(ft);
        char *raw = xcalloc(np, w);
        if (np)
            H5Dread(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw);
        for (size_t i = 0; i < np; i++) {
            out[i] = xcalloc(w + 1, 1);
            memcpy(out[i], raw + i * w, w);
        }
        free(raw);
    }
    H5Tclose(ft);
    H5Sclose(s);
    H5Dclose(d);
    *n = np;
    return out;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

typedef struct stats {
    int64_t total, minimum, maximum, first, last, start_minimum, end_maximum;
    uint64_t gpu_count;
    int64_t gpu_total;
    double mean, m2;
} stats;

/* summary_statistics by field name into the struct above; NULL when absent. */
static stats *read_stats(hid_t f, size_t *n)
{
    const char *path = "/rank_region_index/summary_statistics";
    *n = 0;
    if (!exists(f, path))
        return NULL;
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(stats));
#define F(name, type) H5Tinsert(t, #name, HOFFSET(stats, name), type)
    F(total, H5T_NATIVE_INT64), F(minimum, H5T_NATIVE_INT64), F(maximum, H5T_NATIVE_INT64);
    F(first, H5T_NATIVE_INT64), F(last, H5T_NATIVE_INT64), F(start_minimum, H5T_NATIVE_INT64);
    F(end_maximum, H5T_NATIVE_INT64), F(gpu_count, H5T_NATIVE_UINT64);
    F(gpu_total, H5T_NATIVE_INT64), F(mean, H5T_NATIVE_DOUBLE), F(m2, H5T_NATIVE_DOUBLE);
#undef F
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t ft = H5Dget_type(d);
    if (H5Tget_size(ft) != 88 || H5Tget_nmembers(ft) != 11)
        FAIL("summary_statistics: %zu bytes, %d fields (want 88, 11)", H5Tget_size(ft),
             H5Tget_nmembers(ft));
    hid_t s = H5Dget_space(d);
    size_t np = (size_t)H5Sget_simple_extent_npoints(s);
    stats *v = xcalloc(np, sizeof *v);
    if (np && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        FAIL("summary_statistics unreadable");
    H5Tclose(ft), H5Sclose(s), H5Dclose(d), H5Tclose(t);
    *n = np;
    return v;
}

/* ------------------------------------------------------- a decoded file */

enum { O_GPU, O_CALL, O_PARENT, O_THREAD, O_TASK, O_AWAIT, O_N };
static const char *const opt_names[O_N] = {"gpu_durations", "call_ids", "parent_ids",
                                           "thread_ids",    "task_ids", "await_ns"};

typedef struct colfile {
    hid_t f;
    size_t P, N, nnames;
    int64_t *rid, *rank, *off, *cnt, *excl;
    char **names, **meta;
    int64_t *start, *end; /* decoded, absolute */
    int64_t *opt[O_N];
} colfile;

static void decode(colfile *c, const char *path)
{
    size_t n1 = 0, n2 = 0;
    int64_t *a = read_i64(c->f, "/events/start_deltas", &n1);
    bool s3 = a != NULL;
    if (!s3)
        a = read_i64(c->f, "/events/start_times", &n1);
    int64_t *b = read_i64(c->f, s3 ? "/events/durations" : "/events/end_times", &n2);
    if (!a || !b || n1 != n2) {
        FAIL("%s: timing columns missing or of different lengths", path);
        exit(1);
    }
    c->N = n1;
    c->start = xcalloc(n1, sizeof(int64_t));
    c->end = xcalloc(n1, sizeof(int64_t));
    for (size_t r = 0; r < c->P; r++) {
        for (int64_t i = 0; i < c->cnt[r]; i++) {
            size_t e = (size_t)(c->off[r] + i);
            if (e >= n1)
                break;
            c->start[e] = !s3 ? a[e] : i ? c->start[e - 1] + a[e] : a[e];
            c->end[e] = s3 ? c->start[e] + b[e] : b[e];
        }
    }
    free(a);
    free(b);
}

static void open_col(colfile *c, const char *path, bool optional)
{
    memset(c, 0, sizeof *c);
    c->f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c->f < 0) {
        FAIL("%s: cannot open", path);
        exit(1);
    }
    size_t n[5];
    c->rid = read_i64(c->f, "/rank_region_index/region_ids", &n[0]);
    c->rank = read_i64(c->f, "/rank_region_index/ranks", &n[1]);
    c->off = read_i64(c->f, "/rank_region_index/event_offsets", &n[2]);
    c->cnt = read_i64(c->f, "/rank_region_index/event_counts", &n[3]);
    c->excl = read_i64(c->f, "/rank_region_index/exclusive_totals", &n[4]);
    c->names = read_strs(c->f, "/region_table/names", &c->nnames);
    c->P = n[0];
    for (int k = 1; k < 5; k++)
        if (n[k] != c->P)
            FAIL("%s: index column %d has %zu rows, region_ids %zu", path, k, n[k], c->P);
    size_t nm = 0;
    c->meta = read_strs(c->f, "/rank_region_index/event_metadata", &nm);
    decode(c, path);
    for (int k = 0; optional && k < O_N; k++) {
        char p[64];
        size_t no = 0;
        snprintf(p, sizeof p, "/events/%s", opt_names[k]);
        c->opt[k] = read_i64(c->f, p, &no);
        if (c->opt[k] && no != c->N)
            FAIL("%s: %s has %zu values, N = %zu", path, p, no, c->N);
    }
}

static void close_col(colfile *c)
{
    free(c->rid), free(c->rank), free(c->off), free(c->cnt), free(c->excl);
    free_strs(c->names, c->nnames);
    free_strs(c->meta, c->P);
    free(c->start), free(c->end);
    for (int k = 0; k < O_N; k++)
        free(c->opt[k]);
    H5Fclose(c->f);
}

static const char *row_name(const colfile *c, size_t r)
{
    return c->rid[r] >= 0 && (size_t)c->rid[r] < c->nnames ? c->names[c->rid[r]] : "?";
}

/* ------------------------------------------------------------- checks */

static void check_cover(const colfile *c)
{
    bool *seen = xcalloc(c->N, 1);
    for (size_t r = 0; r < c->P; r++)
        for (int64_t i = 0; i < c->cnt[r]; i++) {
            int64_t e = c->off[r] + i;
            if (e < 0 || (size_t)e >= c->N) {
                FAIL("row %zu: event %lld past N = %zu", r, (long long)e, c->N);
                break;
            }
            if (seen[e])
                FAIL("row %zu: event %lld in two rows", r, (long long)e);
            seen[e] = true;
        }
    for (size_t e = 0; e < c->N; e++)
        if (!seen[e])
            FAIL("event %zu in no row", e);
    free(seen);
}

static void check_row_stats(const colfile *c, size_t r, const stats *s)
{
    stats w = {0};
    int64_t o = c->off[r], n = c->cnt[r];
    for (int64_t i = 0; i < n; i++) {
        int64_t d = c->end[o + i] - c->start[o + i];
        if (d < 0)
            FAIL("row %zu call %lld: end before start", r, (long long)i);
        w.total += d;
        w.minimum = !i || d < w.minimum ? d : w.minimum;
        w.maximum = !i || d > w.maximum ? d : w.maximum;
        w.start_minimum =
            !i || c->start[o + i] < w.start_minimum ? c->start[o + i] : w.start_minimum;
        w.end_maximum = !i || c->end[o + i] > w.end_maximum ? c->end[o + i] : w.end_maximum;
        int64_t g = c->opt[O_GPU] ? c->opt[O_GPU][o + i] : -1;
        w.gpu_count += g >= 0;
        w.gpu_total += g >= 0 ? g : 0;
    }
    if (n) {
        w.first = c->end[o] - c->start[o];
        w.last = c->end[o + n - 1] - c->start[o + n - 1];
        w.mean = (double)w.total / (double)n;
        for (int64_t i = 0; i < n; i++) {
            double dv = (double)(c->end[o + i] - c->start[o + i]) - w.mean;
            w.m2 += dv * dv;
        }
    }
    if (s->total != w.total || s->minimum != w.minimum || s->maximum != w.maximum ||
        s->first != w.first || s->last != w.last || s->start_minimum != w.start_minimum ||
        s->end_maximum != w.end_maximum || s->gpu_count != w.gpu_count ||
        s->gpu_total != w.gpu_total)
        FAIL("row %zu (%s): stored summary integers differ from the columns' (total %lld vs "
             "%lld)",
             r, row_name(c, r), (long long)s->total, (long long)w.total);
    if (fabs(s->mean - w.mean) > 1e-9 * fabs(w.mean) + 1e-9 ||
        fabs(s->m2 - w.m2) > 1e-9 * fabs(w.m2) + 1e-6)
        FAIL("row %zu (%s): mean/m2 %g/%g, columns give %g/%g", r, row_name(c, r), s->mean, s->m2,
             w.mean, w.m2);
}

/* Exclusive totals by brute force: for each call, the union of the
 * intervals of the same rank's calls whose parent id is its id. */
typedef struct nest_call {
    int64_t s, e;
    size_t ev;
} nest_call;

static int cmp_nest(const void *x, const void *y)
{
    const nest_call *p = x, *q = y;
    if (p->s != q->s)
        return p->s < q->s ? -1 : 1;
    if (p->e != q->e)
        return p->e > q->e ? -1 : 1;
    return (p->ev > q->ev) - (p->ev < q->ev);
}

/* Files without ids (one lane per rank): parents by containment, a stack
 * over the calls sorted by start ascending, end descending; the ids then
 * become event indices so check_exclusive can run. */
static void infer_ids(colfile *c)
{
    c->opt[O_CALL] = xcalloc(c->N, sizeof(int64_t));
    c->opt[O_PARENT] = xcalloc(c->N, sizeof(int64_t));
    nest_call *v = xcalloc(c->N, sizeof *v);
    size_t *stack = xcalloc(c->N, sizeof *stack);
    for (size_t r = 0; r < c->P; r++) {
        bool first = true;
        for (size_t q = 0; q < r; q++)
            first &= c->rank[q] != c->rank[r];
        if (!first)
            continue;
        size_t n = 0, depth = 0;
        for (size_t q = 0; q < c->P; q++)
            for (int64_t i = 0; c->rank[q] == c->rank[r] && i < c->cnt[q]; i++) {
                size_t e = (size_t)(c->off[q] + i);
                v[n++] = (nest_call){c->start[e], c->end[e], e};
            }
        qsort(v, n, sizeof *v, cmp_nest);
        for (size_t i = 0; i < n; i++) {
            while (depth && !(v[stack[depth - 1]].e >= v[i].e))
                depth--;
            c->opt[O_CALL][v[i].ev] = (int64_t)v[i].ev;
            c->opt[O_PARENT][v[i].ev] = depth ? (int64_t)v[stack[depth - 1]].ev : -1;
            stack[depth++] = i;
        }
    }
    free(v);
    free(stack);
}

static void check_exclusive(colfile *c)
{
    bool stored = false; /* all -1: "not computed" (C API), nothing to check */
    for (size_t r = 0; c->excl && r < c->P; r++)
        stored |= c->excl[r] != -1;
    if (!stored)
        return;
    if (!c->opt[O_CALL] && !c->opt[O_THREAD])
        infer_ids(c);
    if (!c->excl || !c->opt[O_CALL] || !c->opt[O_PARENT])
        return;
    for (size_t r = 0; r < c->P; r++) {
        int64_t want = 0;
        for (int64_t i = 0; i < c->cnt[r]; i++) {
            size_t e = (size_t)(c->off[r] + i);
            int64_t s = c->start[e], en = c->end[e], covered = 0, cur = s;
            /* Sweep the call's span in child-start order: repeatedly take the
             * child that starts at or before `cur` and reaches furthest. */
            for (;;) {
                int64_t best_end = cur, next_start = INT64_MAX;
                for (size_t q = 0; q < c->P; q++) {
                    if (c->rank[q] != c->rank[r])
                        continue;
                    for (int64_t j = 0; j < c->cnt[q]; j++) {
                        size_t k = (size_t)(c->off[q] + j);
                        if (c->opt[O_PARENT][k] != c->opt[O_CALL][e])
                            continue;
                        int64_t a = c->start[k] < s ? s : c->start[k];
                        int64_t b = c->end[k] > en ? en : c->end[k];
                        if (b <= a)
                            continue;
                        if (a <= cur && b > best_end)
                            best_end = b;
                        if (a > cur && a < next_start)
                            next_start = a;
                    }
                }
                if (best_end > cur) {
                    covered += best_end - cur;
                    cur = best_end;
                } else if (next_start != INT64_MAX) {
                    cur = next_start;
                } else {
                    break;
                }
            }
            want += en - s - covered;
        }
        if (c->excl[r] != want)
            FAIL("row %zu (%s, rank %lld): exclusive_totals %lld, computed %lld", r, row_name(c, r),
                 (long long)c->rank[r], (long long)c->excl[r], (long long)want);
    }
}

/* The number of top-level objects of a JSON array text (no strings with
 * braces in the generator's metadata, but count outside strings anyway). */
static long json_objects(const char *s)
{
    long n = 0;
    int depth = 0;
    bool str = false;
    for (; *s; s++) {
        if (str) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == '"')
                str = false;
        } else if (*s == '"') {
            str = true;
        } else if (*s == '[' || *s == '{') {
            n += *s == '{' && depth == 1; /* an element of the outer array */
            depth++;
        } else if (*s == ']' || *s == '}') {
            depth--;
        }
    }
    return n;
}

static void check_meta(const colfile *c)
{
    for (size_t r = 0; c->meta && r < c->P; r++)
        if (strcmp(c->meta[r], "[]") != 0 && json_objects(c->meta[r]) != c->cnt[r])
            FAIL("row %zu (%s): event_metadata has %ld objects for %lld calls", r, row_name(c, r),
                 json_objects(c->meta[r]), (long long)c->cnt[r]);
}

/* Every thread/task id is -1 or the index of a row of its rank's table. */
static void check_lane(const colfile *c, int k, const char *table)
{
    if (!c->opt[k])
        return;
    char p[64];
    size_t nr = 0, ni = 0;
    snprintf(p, sizeof p, "/%s/ranks", table);
    int64_t *rk = read_i64(c->f, p, &nr);
    snprintf(p, sizeof p, "/%s/index", table);
    int64_t *ix = read_i64(c->f, p, &ni);
    for (size_t r = 0; r < c->P; r++)
        for (int64_t i = 0; i < c->cnt[r]; i++) {
            int64_t id = c->opt[k][c->off[r] + i];
            bool ok = id == -1;
            for (size_t t = 0; !ok && t < nr && t < ni; t++)
                ok = rk[t] == c->rank[r] && ix[t] == id;
            if (!ok) {
                FAIL("row %zu: %s %lld not in %s of rank %lld", r, opt_names[k], (long long)id,
                     table, (long long)c->rank[r]);
                break;
            }
        }
    free(rk);
    free(ix);
}

static void cmd_check(const char *path)
{
    colfile c;
    open_col(&c, path, true);
    check_cover(&c);
    if (failures) { /* rows outside the columns: nothing else is safe to read */
        close_col(&c);
        return;
    }
    size_t ns = 0;
    stats *s = read_stats(c.f, &ns);
    if (s && ns != c.P)
        FAIL("summary_statistics has %zu rows, index %zu", ns, c.P);
    for (size_t r = 0; s && r < c.P && r < ns; r++)
        check_row_stats(&c, r, &s[r]);
    free(s);
    check_exclusive(&c);
    check_meta(&c);
    check_lane(&c, O_THREAD, "thread_table");
    check_lane(&c, O_TASK, "task_table");
    close_col(&c);
}

static void cmd_same(const char *pa, const char *pb)
{
    colfile a, b;
    open_col(&a, pa, false);
    open_col(&b, pb, false);
    if (a.N != b.N || a.P != b.P)
        FAIL("N %zu/%zu, rows %zu/%zu", a.N, b.N, a.P, b.P);
    for (size_t e = 0; e < a.N && e < b.N; e++)
        if (a.start[e] != b.start[e] || a.end[e] != b.end[e]) {
            FAIL("event %zu: [%lld, %lld] vs [%lld, %lld]", e, (long long)a.start[e],
                 (long long)a.end[e], (long long)b.start[e], (long long)b.end[e]);
            break;
        }
    close_col(&a);
    close_col(&b);
}

typedef struct pair {
    int64_t s, e;
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->s != q->s)
        return p->s < q->s ? -1 : 1;
    return (p->e > q->e) - (p->e < q->e);
}

static void cmd_legacy(const char *pc, const char *pl)
{
    colfile c;
    open_col(&c, pc, false);
    hid_t lf = H5Fopen(pl, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (lf < 0) {
        FAIL("%s: cannot open", pl);
        exit(1);
    }
    for (size_t r = 0; r < c.P; r++) {
        char p[512];
        size_t ns = 0, ne = 0;
        snprintf(p, sizeof p, "/rank%lld/regions/%s/start_times", (long long)c.rank[r],
                 row_name(&c, r));
        int64_t *s = read_i64(lf, p, &ns);
        snprintf(p, sizeof p, "/rank%lld/regions/%s/end_times", (long long)c.rank[r],
                 row_name(&c, r));
        int64_t *e = read_i64(lf, p, &ne);
        if (!s) {
            if (strcmp(row_name(&c, r), "allreduce") != 0) /* summary-only in legacy */
                FAIL("%s: no legacy region for row %zu", p, r);
            free(e);
            continue;
        }
        if (ns != (size_t)c.cnt[r] || ne != ns) {
            FAIL("%s: %zu calls, columnar row %zu has %lld", p, ns, r, (long long)c.cnt[r]);
        } else {
            pair *x = xcalloc(ns, sizeof *x), *y = xcalloc(ns, sizeof *y);
            for (size_t i = 0; i < ns; i++) {
                x[i] = (pair){s[i], e[i]};
                y[i] = (pair){c.start[c.off[r] + i], c.end[c.off[r] + i]};
            }
            qsort(x, ns, sizeof *x, cmp_pair);
            qsort(y, ns, sizeof *y, cmp_pair);
            if (memcmp(x, y, ns * sizeof *x) != 0)
                FAIL("%s: calls differ from columnar row %zu", p, r);
            free(x);
            free(y);
        }
        free(s);
        free(e);
    }
    H5Fclose(lf);
    close_col(&c);
}

static void cmd_dump(const char *path)
{
    colfile c;
    open_col(&c, path, false);
    for (size_t r = 0; r < c.P; r++)
        for (int64_t i = 0; i < c.cnt[r]; i++)
            printf("%lld %s %lld %lld\n", (long long)c.rank[r], row_name(&c, r),
                   (long long)c.start[c.off[r] + i], (long long)c.end[c.off[r] + i]);
    close_col(&c);
}

static void cmd_schema(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    long long v = 1;
    if (f < 0) {
        FAIL("%s: cannot open", path);
        return;
    }
    if (H5Aexists(f, "scope_profiler_schema") > 0) {
        hid_t a = H5Aopen(f, "scope_profiler_schema", H5P_DEFAULT);
        if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0)
            FAIL("%s: scope_profiler_schema unreadable", path);
        H5Aclose(a);
    }
    printf("%lld\n", v);
    H5Fclose(f);
}

static void cmd_agg(const char *pa, const char *pc)
{
    colfile c;
    open_col(&c, pc, false);
    hid_t f = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT);
    static const char *const cols[6] = {"ranks",
                                        "aggregate_counts",
                                        "aggregate_totals",
                                        "aggregate_minimums",
                                        "aggregate_maximums",
                                        "aggregate_exclusives"};
    int64_t *v[6];
    size_t n[6], nid = 0, nn = 0;
    for (int k = 0; k < 6; k++) {
        char p[96];
        snprintf(p, sizeof p, "/rank_region_index/%s", cols[k]);
        v[k] = read_i64(f, p, &n[k]);
    }
    int64_t *rid = read_i64(f, "/rank_region_index/region_ids", &nid);
    char **names = read_strs(f, "/region_table/names", &nn);
    if (!v[0] || nid != c.P)
        FAIL("%s: %zu aggregate rows, %s has %zu", pa, nid, pc, c.P);
    for (size_t a = 0; v[0] && a < nid; a++) {
        size_t r = 0;
        while (r < c.P && !(c.rank[r] == v[0][a] && (size_t)rid[a] < nn &&
                            strcmp(row_name(&c, r), names[rid[a]]) == 0))
            r++;
        if (r == c.P) {
            FAIL("aggregate row %zu: no such row in %s", a, pc);
            continue;
        }
        int64_t want[5] = {c.cnt[r], 0, INT64_MAX, INT64_MIN, c.excl ? c.excl[r] : -1};
        for (int64_t i = 0; i < c.cnt[r]; i++) {
            int64_t d = c.end[c.off[r] + i] - c.start[c.off[r] + i];
            want[1] += d;
            want[2] = d < want[2] ? d : want[2];
            want[3] = d > want[3] ? d : want[3];
        }
        for (int k = 1; k < 6; k++)
            if (!v[k] || n[k] != nid || v[k][a] != want[k - 1])
                FAIL("aggregate row %zu (%s): %s %lld, the columns give %lld", a, row_name(&c, r),
                     cols[k], v[k] && a < n[k] ? (long long)v[k][a] : -1LL, (long long)want[k - 1]);
    }
    for (int k = 0; k < 6; k++)
        free(v[k]);
    free(rid);
    free_strs(names, nn);
    H5Fclose(f);
    close_col(&c);
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (argc == 3 && strcmp(argv[1], "check") == 0)
        cmd_check(argv[2]);
    else if (argc == 4 && strcmp(argv[1], "same") == 0)
        cmd_same(argv[2], argv[3]);
    else if (argc == 4 && strcmp(argv[1], "legacy") == 0)
        cmd_legacy(argv[2], argv[3]);
    else if (argc == 3 && strcmp(argv[1], "dump") == 0)
        cmd_dump(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "schema") == 0)
        cmd_schema(argv[2]);
    else if (argc == 4 && strcmp(argv[1], "agg") == 0)
        cmd_agg(argv[2], argv[3]);
    else {
        fputs(
            "usage: colcheck check FILE | same A B | legacy COL LEGACY | dump FILE | schema FILE | "
            "agg AGG COL\n",
            stderr);
        return 2;
    }
    return failures ? 1 : 0;
}
