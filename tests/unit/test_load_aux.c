/* load_aux: auxiliary records of a rank group (line profiles, perf-event
 * counters, LIKWID groups).
 *
 * The upstream files' values are those h5dump prints:
 *   sp3-basic.h5 /rank0/line_profile/0: region "solve", filename
 *     "examples/heat.py", function "cg", first_lineno 20, unit 1e-09,
 *     source_first_lineno 20, source "def cg(A, b):\n    x = 0*b\n ...",
 *     line_numbers 21 22 23 24, hits 40 1400 1400 40,
 *     times 210000 9.8e+06 6.1e+06 100000
 *   sp3-gpu.h5 /rank0/perf_events/{assemble,solve}: calls 30, event_names
 *     cycles, instructions; values 2400000000 5000000000 and
 *     9100000000 14200000000.
 * Malformed records are written here with libhdf5: each gives one warning
 * naming file, rank, record and item, and the good records still load. */
#include <hdf5.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "load/h5util.h"
#include "model/lineprof.h"
#include "load/load_aux.h"
#include "model/profile.h"
#include "testutil.h"

typedef struct aux_load {
    profile *p;
    rank_data *rk;
    sv_err e;
} aux_load;

/* Opens path with h5util and reads the records of group `rank0`. */
static aux_load aux_open(const char *path)
{
    aux_load r = {NULL, NULL, SV_OK};
    struct stat st;
    if (stat(path, &st) != 0 && !sv_shared_available())
        skip(); /* ../shared is absent: main() reports a SKIP */
    if (stat(path, &st) != 0)
        fail_msg("missing %s", path);
    h5u_setup();
    char why[H5U_WHY_MAX];
    hid_t f = h5u_open_file(path, why, sizeof why);
    if (f < 0)
        fail_msg("cannot open %s: %s", path, why);
    h5u_reader rd;
    memset(&rd, 0, sizeof rd); /* fields h5u_reader_init leaves to the loader: none set */
    assert_int_equal(h5u_reader_init(&rd, (uint64_t)st.st_size), H5U_OK);
    r.p = profile_new(path);
    assert_non_null(r.p);
    r.rk = profile_add_rank(r.p, 0);
    assert_non_null(r.rk);
    hid_t rg = H5Gopen2(f, "rank0", H5P_DEFAULT);
    assert_true(rg >= 0);
    sv_error err;
    r.e = load_aux_rank(&rd, r.p, r.rk, rg, &err);
    H5Gclose(rg);
    h5u_reader_close(&rd);
    H5Fclose(f);
    for (size_t i = 0; i < r.p->nwarnings; i++)
        print_message("warning: %s\n", r.p->warnings[i]);
    return r;
}

static void test_line_profile_sp3_basic(void **state)
{
    (void)state;
    char path[4096];
    aux_load r = aux_open(sv_shared_path(path, sizeof path, "data/upstream/sp3-basic.h5"));
    assert_int_equal(r.e, SV_OK);
    assert_int_equal(r.p->nwarnings, 0);
    assert_int_equal(r.rk->nlines, 1);
    assert_int_equal(r.rk->nperf, 0);
    const line_profile *lp = &r.rk->lines[0];
    assert_string_equal(lp->region, "solve");
    assert_string_equal(lp->filename, "examples/heat.py");
    assert_string_equal(lp->function, "cg");
    assert_int_equal(lp->first_lineno, 20);
    assert_true(lp->unit_s == 1e-9);
    assert_non_null(lp->source);
    assert_true(strncmp(lp->source, "def cg(A, b):\n    x = 0*b\n", 26) == 0);
    assert_int_equal(lp->source_first_lineno, 20);
    assert_int_equal(lp->n, 4);
    const int64_t lines[] = {21, 22, 23, 24}, hits[] = {40, 1400, 1400, 40};
    const double times[] = {210000, 9.8e6, 6.1e6, 100000};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(lp->lineno[i], lines[i]);
        assert_int_equal(lp->hits[i], hits[i]);
        assert_true(lp->times[i] == times[i]);
    }
    profile_free(r.p);
}

static void test_perf_events_sp3_gpu(void **state)
{
    (void)state;
    char path[4096];
    aux_load r = aux_open(sv_shared_path(path, sizeof path, "data/upstream/sp3-gpu.h5"));
    assert_int_equal(r.e, SV_OK);
    assert_int_equal(r.p->nwarnings, 0);
    assert_int_equal(r.rk->nlines, 0);
    assert_int_equal(r.rk->nperf, 2);
    const char *names[] = {"assemble", "solve"};
    const double vals[2][2] = {{2400000000.0, 5000000000.0}, {9100000000.0, 14200000000.0}};
    for (size_t i = 0; i < 2; i++) {
        const perf_record *pr = &r.rk->perf[i];
        assert_string_equal(pr->kind, "perf_events");
        assert_string_equal(pr->region, names[i]);
        assert_int_equal(pr->calls, 30);
        assert_int_equal(pr->n, 2);
        assert_string_equal(pr->names[0], "cycles");
        assert_string_equal(pr->names[1], "instructions");
        assert_true(pr->values[0] == vals[i][0]);
        assert_true(pr->values[1] == vals[i][1]);
    }
    profile_free(r.p);
}

/* ------------------------------------------------------------ a hostile file */

static void put_str_attr(hid_t loc, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &v);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void put_strs_attr(hid_t loc, const char *name, const char **v, hsize_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, v);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void put_num_attr(hid_t loc, const char *name, hid_t type, const void *v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, v);
    H5Aclose(a);
    H5Sclose(s);
}

static void put_ds(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int nd,
                   const hsize_t *dims, const void *v)
{
    hid_t s = H5Screate_simple(nd, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
}

/* line_profile/<name> with n1, n2, n3 rows (times as float64, or as a
 * string when times_str). */
static void put_lp(hid_t lpg, const char *name, hsize_t n1, hsize_t n2, hsize_t n3, bool unit,
                   bool times_str)
{
    const int64_t ln[] = {5, 6, 7}, hits[] = {1, 2, 3};
    const double times[] = {10.0, 20.0, 30.0};
    hid_t g = H5Gcreate2(lpg, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str_attr(g, "region", name);
    put_str_attr(g, "filename", "f.py");
    put_str_attr(g, "function", "fn");
    int64_t first = 4;
    double u = 1e-6;
    put_num_attr(g, "first_lineno", H5T_STD_I64LE, &first);
    if (unit)
        put_num_attr(g, "unit", H5T_IEEE_F64LE, &u);
    put_ds(g, "line_numbers", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &n1, ln);
    put_ds(g, "hits", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &n2, hits);
    if (times_str) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 4);
        put_ds(g, "times", t, t, 1, &n3, "abcdefghijkl");
        H5Tclose(t);
    } else {
        put_ds(g, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n3, times);
    }
    H5Gclose(g);
}

static void put_perf(hid_t pg, const char *name, hsize_t nvals, bool vals_str)
{
    const char *ev[] = {"cycles", "instructions"};
    const uint64_t vals[] = {100, 250, 7};
    int64_t calls = 4;
    hid_t g = H5Gcreate2(pg, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_num_attr(g, "calls", H5T_STD_I64LE, &calls);
    put_strs_attr(g, "event_names", ev, 2);
    if (vals_str) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 2);
        put_ds(g, "values", t, t, 1, &nvals, "aabb");
        H5Tclose(t);
    } else {
        put_ds(g, "values", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &nvals, vals);
    }
    H5Gclose(g);
}

static void put_likwid(hid_t lg, const char *name, hsize_t rows)
{
    const char *ev[] = {"INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE"};
    /* 2 events x 3 threads: sums 6 and 60. */
    const double m[] = {1, 2, 3, 10, 20, 30};
    const int64_t cc[] = {1, 2, 3};
    hsize_t dims[2] = {rows, 3}, three = 3;
    hid_t g = H5Gcreate2(lg, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str_attr(g, "tag", "comp/kernel");
    put_str_attr(g, "group_name", "FLOPS_DP");
    put_strs_attr(g, "event_names", ev, 2);
    put_ds(g, "events", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims, m);
    put_ds(g, "call_counts", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &three, cc);
    H5Gclose(g);
}

static void write_hostile(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t rg = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t lpg = H5Gcreate2(rg, "line_profile", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_lp(lpg, "0", 3, 3, 2, true, false);  /* lengths differ */
    put_lp(lpg, "1", 3, 3, 3, true, true);   /* times are strings */
    put_lp(lpg, "10", 3, 3, 3, true, false); /* good, after 2 */
    put_lp(lpg, "2", 2, 2, 2, true, false);  /* good */
    put_lp(lpg, "3", 3, 3, 3, false, false); /* no unit */
    H5Gclose(lpg);
    hid_t pg = H5Gcreate2(rg, "perf_events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_perf(pg, "bad_len", 3, false);
    put_perf(pg, "bad_type", 2, true);
    hid_t io = H5Gcreate2(pg, "io", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_perf(io, "checkpoint", 2, false);
    /* A hard link back up: a cycle the walk must not follow forever. */
    H5Lcreate_hard(pg, "io", io, "loop", H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(io);
    H5Gclose(pg);
    hid_t lk = H5Gcreate2(rg, "likwid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t lkr = H5Gcreate2(lk, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_likwid(lkr, "comp|kernel", 2);
    put_likwid(lkr, "short", 1); /* one row for two event names */
    H5Gclose(lkr);
    H5Gclose(lk);
    H5Gclose(rg);
    H5Fclose(f);
}

static bool has_warning(const profile *p, const char *a, const char *b, const char *c)
{
    for (size_t i = 0; i < p->nwarnings; i++) {
        const char *w = p->warnings[i];
        if (strstr(w, "aux_hostile") && strstr(w, "rank 0") && strstr(w, a) && strstr(w, b) &&
            strstr(w, c))
            return true;
    }
    return false;
}

static void test_hostile_records(void **state)
{
    (void)state;
    char path[] = "/tmp/aux_hostile_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_hostile(path);
    aux_load r = aux_open(path);
    unlink(path);
    assert_int_equal(r.e, SV_OK);

    /* line profiles: "2" then "10" survive, in the writer's order. */
    assert_int_equal(r.rk->nlines, 2);
    assert_string_equal(r.rk->lines[0].region, "2");
    assert_int_equal(r.rk->lines[0].n, 2);
    assert_string_equal(r.rk->lines[1].region, "10");
    assert_int_equal(r.rk->lines[1].n, 3);
    assert_true(r.rk->lines[1].times[2] == 30.0);
    assert_null(r.rk->lines[1].source);
    assert_true(has_warning(r.p, "line_profile/0", "line_numbers, hits, times", "(3, 3, 2)"));
    assert_true(has_warning(r.p, "line_profile/1", "dataset times", "string, not a number"));
    assert_true(has_warning(r.p, "line_profile/3", "attribute unit", "missing"));

    /* perf events: io/checkpoint (nested) survives, the cycle is cut. */
    size_t nperf = 0, nlikwid = 0;
    const perf_record *io = NULL, *lk = NULL;
    for (size_t i = 0; i < r.rk->nperf; i++) {
        const perf_record *pr = &r.rk->perf[i];
        if (strcmp(pr->kind, "perf_events") == 0) {
            nperf++;
            io = pr;
        } else {
            assert_string_equal(pr->kind, "likwid");
            nlikwid++;
            lk = pr;
        }
    }
    assert_int_equal(nperf, 1);
    assert_string_equal(io->region, "io/checkpoint");
    assert_int_equal(io->calls, 4);
    assert_true(io->values[0] == 100 && io->values[1] == 250);
    assert_true(has_warning(r.p, "perf_events/bad_len", "dataset values", "3 values for 2"));
    assert_true(has_warning(r.p, "perf_events/bad_type", "dataset values", "not a number"));
    assert_true(has_warning(r.p, "perf_events", "io/loop", "cycle"));

    /* LIKWID: events summed over the three threads, calls 1+2+3. */
    assert_int_equal(nlikwid, 1);
    assert_string_equal(lk->region, "comp/kernel");
    assert_int_equal(lk->calls, 6);
    assert_int_equal(lk->n, 2);
    assert_string_equal(lk->names[0], "INSTR_RETIRED_ANY");
    assert_true(lk->values[0] == 6.0 && lk->values[1] == 60.0);
    assert_true(has_warning(r.p, "likwid/regions/short", "dataset events", "1 rows for 2"));

    assert_int_equal(r.p->nwarnings, 7);
    profile_free(r.p);
}

/* ------------------------------------------------------------ lineprof */

static void test_lineprof_match(void **state)
{
    (void)state;
    int64_t ln[] = {21, 22, 24};
    int64_t hits[] = {1, 1, 1};
    double times[] = {1, 2, 3};
    char fn[] = "cg", file[] = "examples/heat.py", solve[] = "solve";
    line_profile lp = {.filename = file,
                       .function = fn,
                       .first_lineno = 20,
                       .unit_s = 1e-9,
                       .n = 3,
                       .lineno = ln,
                       .hits = hits,
                       .times = times};
    region r = {.name = solve, .has_lineno = true, .source_lineno = 22};
    char longpath[] = "/home/u/examples/heat.py", other[] = "other/heat.py";
    /* no region attribute: the function's name, or file and line */
    assert_true(lineprof_matches(&lp, "cg", NULL));
    assert_false(lineprof_matches(&lp, "solve", NULL));
    r.source_file = longpath;
    assert_true(lineprof_matches(&lp, "solve", &r));
    r.source_file = other;
    assert_false(lineprof_matches(&lp, "solve", &r));
    r.source_file = file;
    r.source_lineno = 25; /* past the last profiled line, 24 */
    assert_false(lineprof_matches(&lp, "solve", &r));
    r.source_lineno = 20; /* the def line */
    assert_true(lineprof_matches(&lp, "solve", &r));
    /* a region attribute decides alone */
    lp.region = solve;
    assert_true(lineprof_matches(&lp, "solve", NULL));
    assert_false(lineprof_matches(&lp, "cg", NULL));
}

static void test_lineprof_figures(void **state)
{
    (void)state;
    int64_t ln[] = {21, 22, 23, 24, 25};
    int64_t hits[] = {40, 1400, 1400, 40, 0};
    double times[] = {210000, 9.8e6, 6.1e6, 100000, 0};
    line_profile lp = {
        .first_lineno = 20, .unit_s = 1e-9, .n = 5, .lineno = ln, .hits = hits, .times = times};
    /* 9.8e6 units of 1e-9 s: 0.0098 s as a literal reads, not 0.009800000000000001 */
    assert_true(lineprof_row_s(&lp, 1) == 0.0098);
    assert_true(lineprof_row_s(&lp, 2) == 0.0061);
    assert_true(lineprof_total_ns(&lp) == 16210000.0);
    lp.unit_s = 0.3; /* not 1/N: multiplied */
    assert_true(lineprof_row_s(&lp, 3) == 100000 * 0.3);
    lp.unit_s = 1e-9;
    unsigned char hot[5];
    lineprof_hottest(&lp, 3, hot);
    assert_int_equal(hot[1], 1);
    assert_int_equal(hot[2], 2);
    assert_int_equal(hot[0], 3);
    assert_int_equal(hot[3], 0);
    assert_int_equal(hot[4], 0); /* no time: never hot */
    /* ties go to the lower line */
    double tied[] = {5, 5, 5, 5, 5};
    lp.times = tied;
    lineprof_hottest(&lp, 2, hot);
    assert_true(hot[0] == 1 && hot[1] == 2 && hot[2] == 0);

    const char *text = "def cg(A, b):\n    x = 0*b\n    return x\n";
    size_t len;
    const char *l = lineprof_text_line(text, 20, 21, &len);
    assert_non_null(l);
    assert_int_equal(len, 11);
    assert_true(strncmp(l, "    x = 0*b", len) == 0);
    l = lineprof_text_line(text, 20, 22, &len);
    assert_true(l && len == 12 && strncmp(l, "    return x", len) == 0);
    assert_null(lineprof_text_line(text, 20, 23, &len)); /* after the final newline */
    assert_null(lineprof_text_line(text, 20, 19, &len));
    assert_null(lineprof_text_line(NULL, 20, 20, &len));
}

/* ------------------------------------------------------------ a profile for tests/lines.sh */

/* A schema-1 profile whose region, line-profile and counter strings hold
 * terminal escapes, BEL, CR and a newline: every output must escape them. */
static int write_hostile_profile(const char *path)
{
    static const char evil[] = "ev\033[31mil";
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    hid_t rg = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regs = H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t r = H5Gcreate2(regs, evil, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int64_t st[] = {10, 20}, en[] = {15, 33};
    hsize_t two = 2, one = 1;
    put_ds(r, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &two, st);
    put_ds(r, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &two, en);
    H5Gclose(r);
    H5Gclose(regs);
    hid_t lpg = H5Gcreate2(rg, "line_profile", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(lpg, "0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str_attr(g, "region", evil);
    put_str_attr(g, "filename", "f\a.py");
    put_str_attr(g, "function", "fn\033]0;pwn\a");
    put_str_attr(g, "source", "a\033[2Jb\nline\r2\n");
    int64_t first = 1;
    double unit = 1e-9;
    put_num_attr(g, "first_lineno", H5T_STD_I64LE, &first);
    put_num_attr(g, "unit", H5T_IEEE_F64LE, &unit);
    const int64_t ln[] = {1, 2}, hits[] = {1, 2};
    const double times[] = {5, 10};
    put_ds(g, "line_numbers", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &two, ln);
    put_ds(g, "hits", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &two, hits);
    put_ds(g, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &two, times);
    H5Gclose(g);
    H5Gclose(lpg);
    hid_t pg = H5Gcreate2(rg, "perf_events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    g = H5Gcreate2(pg, evil, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int64_t calls = 2;
    const char *ev[] = {"cyc\033[5mles"};
    const uint64_t vals[] = {100};
    put_num_attr(g, "calls", H5T_STD_I64LE, &calls);
    put_strs_attr(g, "event_names", ev, 1);
    put_ds(g, "values", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &one, vals);
    H5Gclose(g);
    H5Gclose(pg);
    H5Gclose(rg);
    return H5Fclose(f) < 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-hostile-profile") == 0)
        return write_hostile_profile(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_profile_sp3_basic), cmocka_unit_test(test_perf_events_sp3_gpu),
        cmocka_unit_test(test_hostile_records),        cmocka_unit_test(test_lineprof_match),
        cmocka_unit_test(test_lineprof_figures),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
