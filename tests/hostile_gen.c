/* hostile_gen: the hostile and changing files of tests/isolate.sh,
 * written with the generator API (tests/gen/gen.h).  Every expected value in
 * isolate.sh follows from the comments here.
 *
 *   hostile_gen span PATH        calls 1e19 ns apart (beyond INT64_MAX)
 *   hostile_gen overflow PATH    a call whose duration overflows int64
 *   hostile_gen lineno PATH      source at line INT64_MAX - 1
 *   hostile_gen formula PATH     names that a spreadsheet would run
 *   hostile_gen warnings PATH N  N regions with a bad thread_ids column
 *   hostile_gen noalloc PATH N   start/end of N elements allocated early,
 *                                never written (a sparse file)
 *   hostile_gen noalloc3 PATH N  the same in schema 3: one index row of N
 *                                events, /events columns never written
 *   hostile_gen nochunk3 PATH N  as noalloc3, the /events columns chunked and
 *                                gzip'd but no chunk written (a file of a few
 *                                KiB claiming 16 N bytes of calls)
 *   hostile_gen alias PATH N     one rank group hard-linked as rank0..rankN
 *   hostile_gen stored PATH      stored summaries that contradict themselves
 *   hostile_gen attrs PATH N     N metadata attributes
 *   hostile_gen swmr PATH        writes PATH in SWMR-write mode, prints
 *                                "open", keeps it open until stdin closes
 *   hostile_gen dead PATH        a writer that died: "open for write" stays
 *   hostile_gen nofilter PATH    a column compressed with filter 40000, which no plugin has
 *   hostile_gen linked PATH N    one region's columns hard-linked into N more
 *   hostile_gen uint64 PATH      an unsigned time of 2^63 + 100
 *   hostile_gen ranks PATH N     schema 3, two calls of "r" on rank 0 and
 *                                metadata mpi_size N (no other rank)
 *   hostile_gen cjk PATH         a thread, a task on it, a counter and a line
 *                                profile named by 40 CJK characters (120 bytes)
 *   hostile_gen far PATH         "r": calls [0, 1] and [2^63 - 2, 2^63 - 1]
 *   hostile_gen max3 PATH        as ranks with N = 1, the second call of "r"
 *                                [20, INT64_MAX] (its duration INT64_MAX - 20)
 *   hostile_gen extremes PATH    "min" [INT64_MIN, INT64_MIN + 10], "max"
 *                                [INT64_MAX - 10, INT64_MAX]
 *   hostile_gen long PATH S      region "w": durations 2^62 + S and 2^63 - 3 - S
 *   hostile_gen lines PATH       line profiles of region "r" with times of
 *                                1e299 ns, 1.7e308 ns, +inf s and 5 ns */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/gen.h"
#include "gen/gen_columnar.h"

#define E18 1000000000000000000LL

static void one_call(hid_t rk, const char *name, int64_t s, int64_t e)
{
    hid_t g = gen_region(rk, name, &(gen_cols){.n = 1, .start = &s, .end = &e});
    gen_close(g);
}

/* rank0: "early" [-5e18, -5e18 + 100], "late" [5e18, 5e18 + 200].  The
 * profile's zero is -5e18: late starts 1e19 ns after it, past INT64_MAX
 * (9 223 372 036 854 775 807): shown saturated, never negative. */
static void write_span(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "early", -5 * E18, -5 * E18 + 100);
    one_call(rk, "late", 5 * E18, 5 * E18 + 200);
    gen_close(rk);
    gen_close(f);
}

/* rank0: "huge" [-5e18, 5e18] (1e19 ns: the int64 difference overflows),
 * "ok" [10, 30]. */
static void write_overflow(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "huge", -5 * E18, 5 * E18);
    one_call(rk, "ok", 10, 30);
    gen_close(rk);
    gen_close(f);
}

/* rank0: "deep" [0, 10], source "a = 1\nb = 2\nc = 3\n" from line
 * INT64_MAX - 1: its lines are 9223372036854775806, ...807, ...808. */
static void write_lineno(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    int64_t s = 0, e = 10;
    hid_t g = gen_region(rk, "deep", &(gen_cols){.n = 1, .start = &s, .end = &e});
    gen_region_source(
        g,
        &(gen_source){.file = "deep.py", .lineno = INT64_MAX - 1, .text = "a = 1\nb = 2\nc = 3\n"});
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

/* rank0: regions named =1+1, +1, -1, @SUM(1), plain, one call each at
 * [0, 10]; "plain" has source file "=evil.py". */
static void write_formula(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    const char *names[] = {"=1+1", "+1", "-1", "@SUM(1)"};
    for (size_t i = 0; i < 4; i++)
        one_call(rk, names[i], 0, 10);
    int64_t s = 0, e = 10;
    hid_t g = gen_region(rk, "plain", &(gen_cols){.n = 1, .start = &s, .end = &e});
    gen_region_source(g, &(gen_source){.file = "=evil.py", .lineno = 1, .text = "x\n"});
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

/* rank0: N regions r<i>, one call [i, i + 1] each, with a thread_ids
 * column of 2 elements (1 expected): N warnings of one kind. */
static void write_warnings(const char *path, long n)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    const int64_t tids[2] = {0, 0};
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%ld", i);
        int64_t s = i, e = i + 1;
        hid_t g = gen_region(rk, name, &(gen_cols){.n = 1, .start = &s, .end = &e});
        gen_col_i64(g, "thread_ids", tids, 2);
        gen_close(g);
    }
    gen_close(rk);
    gen_close(f);
}

/* A contiguous int64 dataset of n elements, file space allocated at
 * creation, nothing written: the file is long but sparse. */
static void early_dataset(hid_t loc, const char *name, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 || H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
        gen_die("noalloc: cannot set up %s", name);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        gen_die("noalloc: cannot create %s", name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* rank0: "big" with start_times and end_times of N elements each (16 N
 * bytes of columns), never written; "ok" [0, 10]. */
static void write_noalloc(const char *path, long n)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    hid_t g = gen_region(rk, "big", NULL);
    early_dataset(g, "start_times", (hsize_t)n);
    early_dataset(g, "end_times", (hsize_t)n);
    gen_close(g);
    one_call(rk, "ok", 0, 10);
    gen_close(rk);
    gen_close(f);
}

/* A chunked, gzip'd int64 dataset of n elements, no chunk written: its
 * storage is nothing, its values the fill value. */
static void unwritten_dataset(hid_t loc, const char *name, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = 65536;
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_deflate(dcpl, 4) < 0)
        gen_die("nochunk3: cannot set up %s", name);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        gen_die("nochunk3: cannot create %s", name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* Schema 3, columnar: region "big" on rank 0 claims N events whose
 * start_deltas and durations are allocated early and never written
 * (unwritten: chunked and gzip'd, no chunk written). */
static void write_noalloc3(const char *path, long n, bool unwritten)
{
    hid_t f = gen_file_create(path);
    gen_attr_int(f, "scope_profiler_schema", 3);
    gen_attr_str(f, "storage_layout", "columnar");
    hid_t rt = gen_group(f, "region_table");
    const char *names[] = {"big"};
    gen_col_strs(rt, "names", names, 1);
    gen_close(rt);
    hid_t ix = gen_group(f, "rank_region_index");
    int64_t zero = 0, count = n;
    gen_col_i64(ix, "region_ids", &zero, 1);
    gen_col_i64(ix, "ranks", &zero, 1);
    gen_col_i64(ix, "event_offsets", &zero, 1);
    gen_col_i64(ix, "event_counts", &count, 1);
    gen_close(ix);
    hid_t ev = gen_group(f, "events");
    (unwritten ? unwritten_dataset : early_dataset)(ev, "start_deltas", (hsize_t)n);
    (unwritten ? unwritten_dataset : early_dataset)(ev, "durations", (hsize_t)n);
    gen_close(ev);
    gen_close(f);
}

/* Schema 3, columnar: region "r" on rank 0, calls [0, 10] and [20, 50];
 * /metadata mpi_size N, so the profile has ranks 0..min(N, 65536) - 1, all
 * but rank 0 without calls. */
static void write_ranks_dur(const char *path, long n, int64_t last)
{
    hid_t f = gen_file_create(path);
    gen_attr_int(f, "scope_profiler_schema", 3);
    gen_attr_str(f, "storage_layout", "columnar");
    gen_metadata(f, (const gen_kv[]){{"mpi_size", GEN_INT, NULL, n, 0}}, 1);
    hid_t rt = gen_group(f, "region_table");
    const char *names[] = {"r"};
    gen_col_strs(rt, "names", names, 1);
    gen_close(rt);
    hid_t ix = gen_group(f, "rank_region_index");
    int64_t zero = 0, count = 2;
    gen_col_i64(ix, "region_ids", &zero, 1);
    gen_col_i64(ix, "ranks", &zero, 1);
    gen_col_i64(ix, "event_offsets", &zero, 1);
    gen_col_i64(ix, "event_counts", &count, 1);
    gen_close(ix);
    hid_t ev = gen_group(f, "events");
    const int64_t deltas[] = {0, 20}, durations[] = {10, last};
    gen_col_i64(ev, "start_deltas", deltas, 2);
    gen_col_i64(ev, "durations", durations, 2);
    gen_close(ev);
    gen_close(f);
}

/* rank0: "min" [INT64_MIN, INT64_MIN + 10], "max" [INT64_MAX - 10,
 * INT64_MAX]: their starts are 2^64 - 11 ns apart. */
static void write_extremes(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "min", INT64_MIN, INT64_MIN + 10);
    one_call(rk, "max", INT64_MAX - 10, INT64_MAX);
    gen_close(rk);
    gen_close(f);
}

/* Schema 3: region "r" [0, 100] on rank 0; its thread 0, task 0 (on thread
 * 0), a perf counter and a line profile's function are each named by
 * "漢字の領域名前テスト" repeated 4 times (40 characters, 80 columns, 120
 * bytes), so any cut by bytes falls inside a character. */
static void write_cjk(const char *path)
{
    const char *n =
        "漢字の領域名前テスト漢字の領域名前テスト漢字の領域名前テスト漢字の領域名前テスト";
    const int64_t s = 0, e = 100;
    const gc_row row = {.region = "r", .n = 1, .start = &s, .end = &e};
    const gc_thread th = {0, 0, 11, 101, 0, 0, 100, 50, n};
    const gc_task tk = {0, 0, 0, 0, 100, 1, 60, 40, "task", n, "coro"};
    const gc_perf pf = {0, "r", 1, 1, (const char *const[]){n}, (const uint64_t[]){1000}};
    const gc_line_profile lp = {.region = "r",
                                .filename = "f.py",
                                .function = n,
                                .first_lineno = 10,
                                .unit = 1e-9,
                                .n = 1,
                                .lines = (const int64_t[]){11},
                                .hits = (const int64_t[]){1},
                                .times = (const double[]){5}};
    gc_write(path,
             &(gc_profile){.rows = &row,
                           .nrows = 1,
                           .threads = &th,
                           .nthreads = 1,
                           .tasks = &tk,
                           .ntasks = 1,
                           .lines = &lp,
                           .nlines = 1,
                           .perf = &pf,
                           .nperf = 1},
             &(gc_opts){.schema = 3, .timing = 3, .chunked = true});
}

/* rank0: region "r", calls [0, 1] and [2^63 - 2, 2^63 - 1]: a span of
 * nearly 2^63 ns. */
static void write_far(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    int64_t st[] = {0, INT64_MAX - 1}, e[] = {1, INT64_MAX};
    hid_t g = gen_region(rk, "r", &(gen_cols){.n = 2, .start = st, .end = e});
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

/* rank0: region "w", two calls of 2^62 + s and 2^63 - 3 - s ns from 0. */
static void write_long(const char *path, long s)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    int64_t st[] = {0, 1}, e[] = {((int64_t)1 << 62) + s, 1 + (INT64_MAX - 3 - s)};
    hid_t g = gen_region(rk, "w", &(gen_cols){.n = 2, .start = st, .end = e});
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

/* Schema 3: region "r" on rank 0, one call [0, 100], and two line profiles
 * of it (function f, file f.py, 1 hit a line):
 * - from line 10, unit 1 ns: lines 11..14 of 1e299, 1.7e308, 1.7e308 and
 *   5 ns (the total is not finite: every share unknown);
 * - from line 20, unit 1000 s: line 21 of 1.7e308 units (+inf s) and line
 *   22 of 0.000002 units (2 ms; its share of an infinite total unknown). */
static void write_lines(const char *path)
{
    const int64_t s = 0, e = 100;
    const gc_row row = {.region = "r", .n = 1, .start = &s, .end = &e};
    const gc_line_profile lp[] = {
        {.region = "r",
         .filename = "f.py",
         .function = "f",
         .first_lineno = 10,
         .unit = 1e-9,
         .n = 4,
         .lines = (const int64_t[]){11, 12, 13, 14},
         .hits = (const int64_t[]){1, 1, 1, 1},
         .times = (const double[]){1e299, 1.7e308, 1.7e308, 5}},
        {.region = "r",
         .filename = "f.py",
         .function = "f",
         .first_lineno = 20,
         .unit = 1000,
         .n = 2,
         .lines = (const int64_t[]){21, 22},
         .hits = (const int64_t[]){1, 1},
         .times = (const double[]){1.7e308, 0.000002}},
    };
    gc_write(path, &(gc_profile){.rows = &row, .nrows = 1, .lines = lp, .nlines = 2},
             &(gc_opts){.schema = 3, .timing = 3, .chunked = true});
}

static void write_ranks(const char *path, long n)
{
    write_ranks_dur(path, n, 30);
}

/* write_ranks with mpi_size 1 and the second call's duration INT64_MAX - 20
 * (it ends at INT64_MAX, the largest time held). */
static void write_max3(const char *path)
{
    write_ranks_dur(path, 1, INT64_MAX - 20);
}

/* rank0: "work", 1000 calls [10 i, 10 i + 5]; rank1..rankN are hard links
 * to the same group. */
static void write_alias(const char *path, long n)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    int64_t *s = gen_alloc(1000, sizeof *s), *e = gen_alloc(1000, sizeof *e);
    for (int i = 0; i < 1000; i++) {
        s[i] = 10 * i;
        e[i] = 10 * i + 5;
    }
    hid_t g = gen_region(rk, "work", &(gen_cols){.n = 1000, .start = s, .end = e});
    gen_close(g);
    gen_close(rk);
    for (long k = 1; k <= n; k++) {
        char name[32];
        snprintf(name, sizeof name, "rank%ld", k);
        if (H5Lcreate_hard(f, "rank0", f, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            gen_die("alias: cannot link %s", name);
    }
    free(s);
    free(e);
    gen_close(f);
}

/* rank0: summary-only "neg" (num_calls -5, std_ns -1, total 100),
 * summary-only "backwards" (num_calls 2, first_start_ns 100,
 * last_end_ns 50), summary-only "fine" (num_calls 1, total 7); "ok" [0, 10]. */
static void write_stored(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    hid_t g = gen_region(rk, "neg", NULL);
    gen_kv neg[] = {{"num_calls", GEN_INT, NULL, -5, 0},
                    {"std_ns", GEN_FLOAT, NULL, 0, -1.0},
                    {"total_ns", GEN_INT, NULL, 100, 0}};
    gen_summary(g, "summary", neg, 3);
    gen_close(g);
    g = gen_region(rk, "backwards", NULL);
    gen_kv back[] = {{"num_calls", GEN_INT, NULL, 2, 0},
                     {"first_start_ns", GEN_INT, NULL, 100, 0},
                     {"last_end_ns", GEN_INT, NULL, 50, 0}};
    gen_summary(g, "summary", back, 3);
    gen_close(g);
    g = gen_region(rk, "fine", NULL);
    gen_kv fine[] = {{"num_calls", GEN_INT, NULL, 1, 0}, {"total_ns", GEN_INT, NULL, 7, 0}};
    gen_summary(g, "summary", fine, 2);
    gen_close(g);
    one_call(rk, "ok", 0, 10);
    gen_close(rk);
    gen_close(f);
}

/* /metadata with N integer attributes k<i> = i; rank0 "ok" [0, 10]. */
static void write_attrs(const char *path, long n)
{
    hid_t f = gen_file_create(path);
    hid_t m = gen_group(f, "metadata");
    for (long i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%ld", i);
        gen_attr_int(m, key, i);
    }
    gen_close(m);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "ok", 0, 10);
    gen_close(rk);
    gen_close(f);
}

/* rank0 "ok" [0, 10] in a file kept open by a SWMR writer: written with the
 * latest format, then H5Fstart_swmr_write; "open" on stdout; closed when
 * stdin reaches its end. */
static void write_swmr(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
        gen_die("swmr: fapl");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        gen_die("swmr: cannot create %s", path);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "ok", 0, 10);
    gen_close(rk);
    if (H5Fstart_swmr_write(f) < 0)
        gen_die("swmr: cannot start SWMR writing");
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    printf("open\n");
    fflush(stdout);
    char buf[64];
    while (fread(buf, 1, sizeof buf, stdin) > 0)
        ;
    H5Fclose(f);
    H5Pclose(fapl);
}

/* rank0 "ok" [0, 10], written with the latest format and flushed, then the
 * writer dies without closing: the superblock still says "open for write". */
static void write_dead(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
        gen_die("dead: fapl");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        gen_die("dead: cannot create %s", path);
    hid_t rk = gen_rank(f, 0);
    one_call(rk, "ok", 0, 10);
    gen_close(rk);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    _exit(0);
}

/* A pass-through filter under id 40000 (the unregistered range; no plugin
 * provides it): the file records it as mandatory, so no reader can read
 * the column. */
static size_t private_passthrough(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                                  size_t nbytes, size_t *buf_size, void **buf)
{
    (void)flags, (void)cd_nelmts, (void)cd_values, (void)buf_size, (void)buf;
    return nbytes;
}

/* rank0: "ok" [0, 10] with a thread_ids column [0] compressed with filter 40000. */
static void write_nofilter(const char *path)
{
    static const H5Z_class2_t cls = {H5Z_CLASS_T_VERS, 40000, 1,    1,
                                     "private",        NULL,  NULL, private_passthrough};
    if (H5Zregister(&cls) < 0)
        gen_die("nofilter: cannot register the filter");
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    int64_t s = 0, e = 10, t = 0;
    hid_t g = gen_region(rk, "ok", &(gen_cols){.n = 1, .start = &s, .end = &e});
    hsize_t n = 1;
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &n) < 0 ||
        H5Pset_filter(dcpl, 40000, H5Z_FLAG_MANDATORY, 0, NULL) < 0)
        gen_die("nofilter: dataset properties");
    hid_t d = H5Dcreate2(g, "thread_ids", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &t) < 0)
        gen_die("nofilter: cannot write thread_ids");
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

/* rank0: "r0" with 100 000 calls [10 i, 10 i + 5] (deflated columns);
 * r1..rN hard-link r0's start_times and end_times datasets. */
static void write_linked(const char *path, long n)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    const size_t m = 100000;
    int64_t *s = gen_alloc(m, sizeof *s), *e = gen_alloc(m, sizeof *e);
    for (size_t i = 0; i < m; i++) {
        s[i] = 10 * (int64_t)i;
        e[i] = 10 * (int64_t)i + 5;
    }
    hid_t g = gen_region(rk, "r0", &(gen_cols){.n = m, .start = s, .end = e});
    gen_close(g);
    for (long k = 1; k <= n; k++) {
        char name[32];
        snprintf(name, sizeof name, "r%ld", k);
        g = gen_region(rk, name, NULL);
        if (H5Lcreate_hard(rk, "regions/r0/start_times", g, "start_times", H5P_DEFAULT,
                           H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(rk, "regions/r0/end_times", g, "end_times", H5P_DEFAULT, H5P_DEFAULT) <
                0)
            gen_die("linked: cannot link %s", name);
        gen_close(g);
    }
    free(s);
    free(e);
    gen_close(rk);
    gen_close(f);
}

/* rank0: "big", start_times uint64 [10], end_times uint64 [2^63 + 100]
 * (libhdf5 converts it to int64 as INT64_MAX, silently). */
static void write_uint64(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    hid_t g = gen_region(rk, "big", NULL);
    const uint64_t s = 10, e = ((uint64_t)1 << 63) + 100;
    gen_col_typed(g, "start_times", H5T_STD_U64LE, H5T_NATIVE_UINT64, &s, 1);
    gen_col_typed(g, "end_times", H5T_STD_U64LE, H5T_NATIVE_UINT64, &e, 1);
    gen_close(g);
    gen_close(rk);
    gen_close(f);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hostile_gen SCENARIO PATH [N]\n");
        return 2;
    }
    const char *what = argv[1], *path = argv[2];
    long n = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
    if (strcmp(what, "span") == 0)
        write_span(path);
    else if (strcmp(what, "overflow") == 0)
        write_overflow(path);
    else if (strcmp(what, "lineno") == 0)
        write_lineno(path);
    else if (strcmp(what, "formula") == 0)
        write_formula(path);
    else if (strcmp(what, "warnings") == 0)
        write_warnings(path, n);
    else if (strcmp(what, "noalloc") == 0)
        write_noalloc(path, n);
    else if (strcmp(what, "noalloc3") == 0)
        write_noalloc3(path, n, false);
    else if (strcmp(what, "nochunk3") == 0)
        write_noalloc3(path, n, true);
    else if (strcmp(what, "alias") == 0)
        write_alias(path, n);
    else if (strcmp(what, "stored") == 0)
        write_stored(path);
    else if (strcmp(what, "attrs") == 0)
        write_attrs(path, n);
    else if (strcmp(what, "swmr") == 0)
        write_swmr(path);
    else if (strcmp(what, "dead") == 0)
        write_dead(path);
    else if (strcmp(what, "nofilter") == 0)
        write_nofilter(path);
    else if (strcmp(what, "linked") == 0)
        write_linked(path, n);
    else if (strcmp(what, "uint64") == 0)
        write_uint64(path);
    else if (strcmp(what, "ranks") == 0)
        write_ranks(path, n);
    else if (strcmp(what, "lines") == 0)
        write_lines(path);
    else if (strcmp(what, "cjk") == 0)
        write_cjk(path);
    else if (strcmp(what, "far") == 0)
        write_far(path);
    else if (strcmp(what, "max3") == 0)
        write_max3(path);
    else if (strcmp(what, "extremes") == 0)
        write_extremes(path);
    else if (strcmp(what, "long") == 0)
        write_long(path, n);
    else {
        fprintf(stderr, "hostile_gen: unknown scenario %s\n", what);
        return 2;
    }
    return 0;
}
