/* Native traces (.spt): both versions and byte orders written by the
 * generator (tests/gen/gen_spt.c), a run as a directory or as its files,
 * a trace beside a C-API HDF5 rank file, and every fault the format can
 * carry (one error naming the file and the offset).  Values are the calls
 * written, exclusive totals worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen/gen_spt.h"
#include "load/loader.h"
#include "model/region.h"
#include "testutil.h"

typedef struct spt_dir {
    char path[256];
} spt_dir;

static void dir_new(spt_dir *d)
{
    snprintf(d->path, sizeof d->path, "%s/spt.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(d->path));
}

static void dir_free(spt_dir *d)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->path);
    assert_int_equal(system(cmd), 0);
}

static const char *in_dir(const spt_dir *d, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", d->path, name);
    return buf;
}

/* main [0, 100] > step [10, 40] > work [15, 30]; step [50, 90];
 * exclusive: main 100 - 30 - 40 = 30, step 30 - 15 + 40 = 55, work 15. */
static const int64_t main_s[] = {0}, main_e[] = {100};
static const int64_t step_s[] = {10, 50}, step_e[] = {40, 90};
static const int64_t work_s[] = {15}, work_e[] = {30};

static gen_spt trace(int32_t version, bool be, int32_t rank, gen_spt_region *r)
{
    r[0] = (gen_spt_region){"main", "src/heat.c", 88, 1, main_s, main_e};
    r[1] = (gen_spt_region){"step", "src/heat.c", 61, 2, step_s, step_e};
    r[2] = (gen_spt_region){"work", NULL, -1, 1, work_s, work_e};
    return (gen_spt){version, be, rank, r, 3};
}

static void write_trace(const spt_dir *d, const char *name, int32_t version, bool be, int32_t rank)
{
    gen_spt_region r[3];
    gen_spt t = trace(version, be, rank, r);
    char p[300];
    assert_true(gen_spt_write(in_dir(d, name, p, sizeof p), &t));
}

static profile *load_ok(const char *const *paths, size_t n)
{
    profile *p = NULL;
    sv_error err;
    sv_err e = profile_load_set(paths, n, NULL, &p, &err);
    if (e)
        fail_msg("load %s: %s", paths[0], err.msg);
    for (size_t i = 0; i < p->nwarnings; i++)
        print_message("warning: %s\n", p->warnings[i]);
    assert_int_equal(p->nwarnings, 0);
    return p;
}

static void check_rank(const profile *p, int rank, bool v2)
{
    const rank_data *rk = profile_rank(p, rank);
    assert_non_null(rk);
    assert_int_equal(rk->nregions, 3);
    assert_int_equal(rk->ncalls, 4);
    const region *m = rank_region(rk, "main"), *s = rank_region(rk, "step"),
                 *w = rank_region(rk, "work");
    assert_non_null(m);
    assert_non_null(s);
    assert_non_null(w);
    assert_int_equal(s->n, 2);
    assert_int_equal(s->start_ns[0], 10);
    assert_int_equal(s->start_ns[1], 50);
    assert_int_equal(s->end_ns[0], 40);
    assert_int_equal(s->end_ns[1], 90);
    assert_int_equal(m->st.total_ns, 100);
    assert_int_equal(s->st.total_ns, 70);
    assert_int_equal(m->st.exclusive_total_ns, 30);
    assert_int_equal(s->st.exclusive_total_ns, 55);
    assert_int_equal(w->st.exclusive_total_ns, 15);
    assert_false(rk->explicit_ids);
    assert_null(m->source_text);
    if (v2) {
        assert_non_null(m->source_file);
        assert_string_equal(m->source_file, "src/heat.c");
        assert_true(m->has_lineno);
        assert_int_equal(m->source_lineno, 88);
        assert_int_equal(s->source_lineno, 61);
        assert_null(w->source_file); /* length 0: unknown */
        assert_false(w->has_lineno); /* -1: unknown */
    } else {
        assert_null(m->source_file);
        assert_false(m->has_lineno);
    }
}

/* Both versions in both byte orders, as a directory. */
static void test_versions_orders(void **st)
{
    (void)st;
    spt_dir d;
    dir_new(&d);
    write_trace(&d, "a_rank00000.spt", 2, false, 0);
    write_trace(&d, "a_rank00001.spt", 2, true, 1);
    write_trace(&d, "a_rank00002.spt", 1, false, 2);
    write_trace(&d, "a_rank00003.spt", 1, true, 3);
    const char *dir = d.path;
    profile *p = load_ok(&dir, 1);
    assert_int_equal(p->nranks, 4);
    assert_int_equal(p->layout, LAYOUT_NATIVE);
    assert_int_equal(p->npaths, 4);
    for (int r = 0; r < 4; r++)
        check_rank(p, r, r < 2);
    assert_non_null(p->path_formats);
    assert_string_equal(p->path_formats[0], "native trace, version 2, little-endian, rank 0");
    assert_string_equal(p->path_formats[1], "native trace, version 2, big-endian, rank 1");
    assert_string_equal(p->path_formats[2], "native trace, version 1, little-endian, rank 2");
    assert_string_equal(p->path_formats[3], "native trace, version 1, big-endian, rank 3");
    char want[300];
    assert_string_equal(p->paths[3], in_dir(&d, "a_rank00003.spt", want, sizeof want));
    profile_free(p);
    dir_free(&d);
}

/* The files named one by one, in any order, give the directory's model. */
static void test_files_equal_dir(void **st)
{
    (void)st;
    spt_dir d;
    dir_new(&d);
    write_trace(&d, "b_rank00000.spt", 2, false, 0);
    write_trace(&d, "b_rank00001.spt", 1, true, 1);
    write_trace(&d, "b_rank00002.spt", 2, true, 2);
    const char *dir = d.path;
    profile *a = load_ok(&dir, 1);
    char f0[300], f1[300], f2[300];
    const char *files[] = {in_dir(&d, "b_rank00002.spt", f2, sizeof f2),
                           in_dir(&d, "b_rank00000.spt", f0, sizeof f0),
                           in_dir(&d, "b_rank00001.spt", f1, sizeof f1)};
    profile *b = load_ok(files, 3);
    assert_int_equal(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const region *x = a->regions[i], *y = b->regions[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->rank, y->rank);
        assert_memory_equal(&x->st, &y->st, sizeof x->st);
    }
    /* One file alone is one rank. */
    profile *c = load_ok(&files[0], 1);
    assert_int_equal(c->nranks, 1);
    assert_int_equal(c->ranks[0].rank, 2);
    assert_string_equal(c->path_formats[0], "native trace, version 2, big-endian, rank 2");
    profile_free(a);
    profile_free(b);
    profile_free(c);
    dir_free(&d);
}

/* A trace beside the C API's HDF5 rank file: one profile of both ranks,
 * the HDF5 file's metadata. */
static void test_mixed_with_h5(void **st)
{
    (void)st;
    char h5[512];
    sv_fixture_path(h5, sizeof h5, "capi_rank00000.h5");
    if (!sv_file_exists(h5)) {
        print_message("SKIP: %s not generated\n", h5);
        skip();
    }
    spt_dir d;
    dir_new(&d);
    write_trace(&d, "capi_rank00005.spt", 2, false, 5);
    char spt[300];
    const char *files[] = {in_dir(&d, "capi_rank00005.spt", spt, sizeof spt), h5};
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load_set(files, 2, NULL, &p, &err), SV_OK);
    assert_int_equal(p->nranks, 2);
    assert_int_equal(p->ranks[0].rank, 0);
    assert_int_equal(p->ranks[1].rank, 5);
    check_rank(p, 5, true);
    assert_int_equal(p->layout, LAYOUT_COLUMNAR);
    assert_non_null(profile_meta(p, "mpi_rank"));
    assert_string_equal(p->path_formats[1], "HDF5, schema 2, columnar, rank 0");
    profile_free(p);
    dir_free(&d);
}

/* ------------------------------------------------------------ faults */

/* The v2 trace of rank 0 above as bytes (3 regions, main first). */
static unsigned char *good_bytes(int32_t version, bool be, size_t *len)
{
    gen_spt_region r[3];
    gen_spt t = trace(version, be, 0, r);
    unsigned char *b = gen_spt_encode(&t, len);
    assert_non_null(b);
    return b;
}

static void put32(unsigned char *b, int32_t v, bool be)
{
    for (int i = 0; i < 4; i++)
        b[be ? 3 - i : i] = (unsigned char)((uint32_t)v >> (8 * i));
}

static void put64(unsigned char *b, int64_t v, bool be)
{
    for (int i = 0; i < 8; i++)
        b[be ? 7 - i : i] = (unsigned char)((uint64_t)v >> (8 * i));
}

/* Loads bytes b as one file: the error must name it and hold want. */
static void expect_fault(const unsigned char *b, size_t len, const char *want)
{
    spt_dir d;
    dir_new(&d);
    char path[300];
    in_dir(&d, "bad_rank00000.spt", path, sizeof path);
    assert_true(gen_spt_write_bytes(path, b, len));
    profile *p = NULL;
    sv_error err;
    sv_err e = profile_load(path, NULL, &p, &err);
    assert_null(p);
    assert_int_not_equal(e, SV_OK);
    if (!strstr(err.msg, want) || !strstr(err.msg, path))
        fail_msg("message '%s' lacks '%s' or the path", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
    dir_free(&d);
}

/* Offsets in the v2 little-endian trace: header 24 bytes, then main's
 * name length at 24, name at 28, source length at 32, source at 36 (10
 * bytes), line at 46, call count at 50, calls at 58. */
static void test_faults(void **st)
{
    (void)st;
    size_t len;
    unsigned char *b = good_bytes(2, false, &len);
    unsigned char *c = malloc(len + 8);
    assert_non_null(c);

    expect_fault(b, 10, "at offset 10: truncated: the header needs 24 bytes, the file has 10");
    expect_fault(b, len - 3, "at offset 156: region work: 1 calls need 16 bytes, 13 left");
    expect_fault(b, 30, "at offset 16: region count 3 is more than the 6 bytes left can hold");
    memcpy(c, b, len);
    put64(c + 16, 1, false);
    expect_fault(c, 50, "at offset 50: truncated: a call count needs 8 bytes, 0 left");

    memcpy(c, b, len);
    put32(c + 8, 3, false);
    expect_fault(c, len, "at offset 8: unknown format version 3 (big-endian 50331648)");

    memcpy(c, b, len);
    put32(c + 12, -2, false);
    expect_fault(c, len, "at offset 12: negative rank -2");

    memcpy(c, b, len);
    put64(c + 16, -1, false);
    expect_fault(c, len, "at offset 16: negative region count -1");

    memcpy(c, b, len);
    put64(c + 16, 1000000, false);
    expect_fault(c, len, "at offset 16: region count 1000000 is more than the");

    memcpy(c, b, len);
    put32(c + 24, -5, false);
    expect_fault(c, len, "at offset 24: negative region name length -5");

    memcpy(c, b, len);
    put32(c + 24, 100000, false);
    expect_fault(c, len, "at offset 24: region name length 100000 is more than the");

    memcpy(c, b, len);
    c[29] = 0xff; /* "m\xffin" */
    expect_fault(c, len, "at offset 29: the region name is not valid UTF-8");

    memcpy(c, b, len);
    c[30] = 0; /* "ma\0n" */
    expect_fault(c, len, "at offset 30: the region name is not valid UTF-8 (a NUL byte)");

    memcpy(c, b, len);
    put64(c + 50, -7, false);
    expect_fault(c, len, "at offset 50: region main: negative call count -7");

    memcpy(c, b, len);
    put64(c + 50, 1000000, false);
    expect_fault(c, len, "at offset 50: region main: 1000000 calls need 16000000 bytes");

    memcpy(c, b, len);
    memset(c + len, 0, 3);
    expect_fault(c, len + 3, "3 trailing bytes after the last region");

    memcpy(c, b, len);
    memcpy(c + 44, "\xc3\x28", 2); /* "src/heat.c" with a bad sequence */
    expect_fault(c, len, "at offset 44: the source file is not valid UTF-8");
    free(b);
    free(c);
}

/* The same faults are told in a big-endian version-1 trace. */
static void test_faults_v1_be(void **st)
{
    (void)st;
    size_t len;
    unsigned char *b = good_bytes(1, true, &len);
    unsigned char *c = malloc(len);
    assert_non_null(c);
    memcpy(c, b, len);
    /* v1: name length 24, name 28, call count 32 */
    put64(c + 32, -1, true);
    expect_fault(c, len, "at offset 32: region main: negative call count -1");
    memcpy(c, b, len);
    put32(c + 8, 0x7f, true);
    expect_fault(c, len, "unknown format version 2130706432 (big-endian 127)");
    free(b);
    free(c);
}

/* A region twice in one trace, and two traces of one rank (both named). */
static void test_duplicates(void **st)
{
    (void)st;
    gen_spt_region r[3];
    gen_spt t = trace(2, false, 0, r);
    r[2].name = "main";
    size_t len;
    unsigned char *b = gen_spt_encode(&t, &len);
    assert_non_null(b);
    expect_fault(b, len, "region main comes twice");
    free(b);

    spt_dir d;
    dir_new(&d);
    write_trace(&d, "x_rank00000.spt", 2, false, 3);
    write_trace(&d, "y_rank00001.spt", 1, true, 3);
    const char *dir = d.path;
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load_set(&dir, 1, NULL, &p, &err), SV_ERR_FORMAT);
    char x[300], y[300];
    in_dir(&d, "x_rank00000.spt", x, sizeof x);
    in_dir(&d, "y_rank00001.spt", y, sizeof y);
    if (!strstr(err.msg, x) || !strstr(err.msg, y) || !strstr(err.msg, "rank 3"))
        fail_msg("message '%s' does not name both files and the rank", err.msg);
    dir_free(&d);
}

/* A call that ends before it starts drops its region (a warning), as in
 * the HDF5 layouts; an empty directory is refused. */
static void test_end_before_start_and_empty(void **st)
{
    (void)st;
    static const int64_t s[] = {5, 20}, e[] = {9, 19};
    gen_spt_region r[2] = {{"ok", NULL, -1, 1, s, e}, {"bad", NULL, -1, 2, s, e}};
    gen_spt t = {2, false, 0, r, 2};
    spt_dir d;
    dir_new(&d);
    char path[300];
    assert_true(gen_spt_write(in_dir(&d, "z.spt", path, sizeof path), &t));
    const char *one = path;
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load_set(&one, 1, NULL, &p, &err), SV_OK);
    assert_int_equal(p->nregions, 1);
    assert_string_equal(p->regions[0]->name, "ok");
    assert_int_equal(p->nwarnings, 1);
    assert_non_null(strstr(p->warnings[0], "region bad: end < start at call 1"));
    profile_free(p);
    unlink(path);
    const char *dir = d.path;
    assert_int_equal(profile_load_set(&dir, 1, NULL, &p, &err), SV_ERR_IO);
    assert_non_null(strstr(err.msg, "a directory without native traces"));
    dir_free(&d);
}

/* Told by content: a trace named .h5 loads, an HDF5 file named .spt too. */
static void test_by_content(void **st)
{
    (void)st;
    spt_dir d;
    dir_new(&d);
    write_trace(&d, "odd.h5", 1, false, 0);
    char path[300];
    const char *one = in_dir(&d, "odd.h5", path, sizeof path);
    profile *p = load_ok(&one, 1);
    check_rank(p, 0, false);
    profile_free(p);
    dir_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_orders),
        cmocka_unit_test(test_files_equal_dir),
        cmocka_unit_test(test_mixed_with_h5),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_faults_v1_be),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_end_before_start_and_empty),
        cmocka_unit_test(test_by_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
