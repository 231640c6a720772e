/* One side of a comparison built in the loading child (diff_remote.h).
 *
 * Identity: for pairs of shared profiles and fixtures, under several
 * options (ranks merged, one rank, a filter), the comparison built from
 * the two children's sides (isolate_start with prepare and section) is the
 * comparison diff_profiles() builds in-process from the whole models: the
 * same rows in the same order, every value bit for bit, the same samples.
 * The children nest the calls themselves (nest_rank_parents in the child):
 * equal paths, calls, exclusive times and samples are the check that their
 * nesting is the in-process one.
 *
 * The section on the wire: a round trip gives the same side; every prefix
 * of the stream, a section where none is expected, none where one is, a
 * parent index pointing forward and a sample range out of bounds are
 * rejected (WIRE_BROKEN); flipped bytes give a side or an error, never a
 * crash or a leak (ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/diff.h"
#include "isolate/diff_remote.h"
#include "model/filter.h"
#include "isolate/isolate.h"
#include "load/loader.h"
#include "model/nest.h"
#include "model/sanity.h"
#include "testutil.h"
#include "isolate/wire.h"

static void same_side(const diff_result *a, const diff_result *b, const diff_row *x,
                      const diff_row *y, int s, bool is_region, const char *what)
{
    const diff_side *p = &x->s[s], *q = &y->s[s];
    if (p->present != q->present || p->events != q->events || p->has_calls != q->has_calls ||
        p->calls != q->calls || p->known != q->known || p->n != q->n ||
        memcmp(p->v, q->v, sizeof p->v) != 0)
        fail_msg("%s: side %d of %s differs", what, s, diff_row_name(a, x));
    if (!is_region)
        return;
    size_t na, nb;
    const int64_t *va = diff_row_sample(a, x, s, &na), *vb = diff_row_sample(b, y, s, &nb);
    assert_int_equal(na, nb);
    if (na && memcmp(va, vb, na * sizeof *va) != 0)
        fail_msg("%s: the samples of %s differ", what, diff_row_name(a, x));
}

static void same_row(const diff_result *a, const diff_result *b, const diff_row *x,
                     const diff_row *y, bool is_region, const char *what)
{
    assert_string_equal(diff_row_name(a, x), diff_row_name(b, y));
    assert_int_equal(x->parent, y->parent);
    assert_int_equal(x->depth, y->depth);
    assert_int_equal(x->state, y->state);
    assert_int_equal(x->tested, y->tested);
    assert_int_equal(x->has_rel, y->has_rel);
    assert_int_equal(x->flag, y->flag);
    if (x->tested && memcmp(&x->mwu, &y->mwu, sizeof x->mwu) != 0)
        fail_msg("%s: the test of %s differs", what, diff_row_name(a, x));
    if (memcmp(&x->q, &y->q, sizeof x->q) || memcmp(&x->hl_ns, &y->hl_ns, sizeof x->hl_ns) ||
        (x->has_rel && memcmp(&x->rel, &y->rel, sizeof x->rel)))
        fail_msg("%s: q, shift or change of %s differ", what, diff_row_name(a, x));
    for (int s = 0; s < 2; s++)
        same_side(a, b, x, y, s, is_region, what);
}

static void same_diff(const diff_result *a, const diff_result *b, const char *what)
{
    assert_string_equal(a->label[0], b->label[0]);
    assert_string_equal(a->label[1], b->label[1]);
    assert_int_equal(a->nregions, b->nregions);
    assert_int_equal(a->npaths, b->npaths);
    for (size_t i = 0; i < a->nregions; i++)
        same_row(a, b, &a->regions[i], &b->regions[i], true, what);
    for (size_t i = 0; i < a->npaths; i++)
        same_row(a, b, &a->paths[i], &b->paths[i], false, what);
    assert_int_equal(a->nsamples[0], b->nsamples[0]);
    assert_int_equal(a->nsamples[1], b->nsamples[1]);
    assert_memory_equal(a->child_off, b->child_off, (a->npaths + 1) * sizeof *a->child_off);
    if (a->npaths > 1)
        assert_memory_equal(a->child, b->child, (a->npaths - 1) * sizeof *a->child);
    assert_memory_equal(a->nflag, b->nflag, sizeof a->nflag);
}

/* The comparison as run_compare's batch path builds it: both children
 * started at once, each sending its side. */
/* Every warning of both sides, one a line (the loads' and the nesting's). */
typedef struct warn_log {
    char text[1 << 16];
    size_t len;
} warn_log;

static void log_warnings(warn_log *w, const profile *p)
{
    for (size_t i = 0; i < p->nwarnings; i++) {
        int k = snprintf(w->text + w->len, sizeof w->text - w->len, "%s\n", p->warnings[i]);
        if (k > 0 && (size_t)k < sizeof w->text - w->len)
            w->len += (size_t)k;
    }
}

static sv_err diff_isolated(const char *const path[2], const diff_options *o,
                            const region_filter *f, diff_result **out, warn_log *wl, sv_error *err)
{
    diff_result *d = NULL;
    sv_err rc = diff_begin(o, f, &d, err);
    if (rc != SV_OK)
        return rc;
    diff_remote side[2];
    isolate_load *ld[2];
    for (int s = 0; s < 2; s++) {
        diff_remote_init(&side[s], o, f);
        isolate_options io = {.prepare = diff_remote_prepare,
                              .section = &side[s].section,
                              .prepare_nests = side[s].nests};
        ld[s] = isolate_start(path[s], &io);
    }
    for (int s = 0; s < 2; s++) {
        profile *p = NULL;
        if (rc == SV_OK)
            rc = isolate_collect(ld[s], &p, err);
        else
            isolate_cancel(ld[s]);
        if (rc == SV_OK) {
            assert_true(diff_remote_ready(&side[s]));
            assert_int_equal(p->nranks, 0); /* the stub: no columns crossed */
            log_warnings(wl, p);
            rc = diff_add_remote(d, s, p->path, &side[s], err);
        }
        profile_free(p);
        diff_remote_free(&side[s]);
    }
    if (rc == SV_OK)
        rc = diff_finish(d, err);
    if (rc != SV_OK) {
        diff_free(d);
        return rc;
    }
    *out = d;
    return SV_OK;
}

static sv_err diff_in_process(const char *const path[2], const diff_options *o,
                              const region_filter *f, diff_result **out, warn_log *wl,
                              sv_error *err)
{
    profile *p[2] = {NULL, NULL};
    sv_err rc = SV_OK;
    for (int s = 0; s < 2 && rc == SV_OK; s++) {
        rc = profile_load(path[s], NULL, &p[s], err);
        if (rc == SV_OK) {
            profile_check_values(p[s]); /* as the loading child does */
            log_warnings(wl, p[s]);
        }
    }
    /* run_compare adds one side, then loads the other: BASE's failure
     * leaves NEW unloaded, unwarned */
    if (rc == SV_OK && o->rank >= 0 && !profile_rank(p[0], o->rank)) {
        wl->len = 0;
        log_warnings(wl, p[0]);
    }
    if (rc == SV_OK)
        rc = diff_profiles(p[0], p[1], o, f, out, err);
    profile_free(p[0]);
    profile_free(p[1]);
    return rc;
}

static void check_pair(const char *a, const char *b, const diff_options *o, const region_filter *f)
{
    const char *path[2] = {a, b};
    char what[8192];
    snprintf(what, sizeof what, "%s vs %s (rank %d)", a, b, o->rank);
    diff_result *x = NULL, *y = NULL;
    sv_error e1, e2;
    static warn_log w1, w2;
    w1.len = w2.len = 0;
    sv_err r1 = diff_in_process(path, o, f, &x, &w1, &e1);
    sv_err r2 = diff_isolated(path, o, f, &y, &w2, &e2);
    if (w1.len != w2.len || memcmp(w1.text, w2.text, w1.len) != 0)
        fail_msg("%s: warnings differ:\n%.*s---\n%.*s", what, (int)w1.len, w1.text, (int)w2.len,
                 w2.text);
    if (r1 != r2)
        fail_msg("%s: in-process %d (%s), isolated %d (%s)", what, r1, r1 ? e1.msg : "", r2,
                 r2 ? e2.msg : "");
    if (r1 == SV_OK)
        same_diff(x, y, what);
    else
        assert_string_equal(e1.msg, e2.msg);
    diff_free(x);
    diff_free(y);
}

static void shared(char *buf, size_t len, const char *rel)
{
    sv_shared_path(buf, len, rel);
}

static void test_same_as_in_process(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    static const char *const pairs[][2] = {
        {"data/real/solver.h5", "data/real/solver.h5"},
        {"data/real/solver.h5", "data/real/solver_threads_small.h5"},
        {"data/real/solver_mpi4.h5", "data/real/solver.h5"},
        {"data/real/recursive.h5", "data/extended/recursion.h5"},
        {"data/extended/async_server.h5", "data/extended/gpu_train.h5"},
        {"data/upstream/hdf5-schema-1.h5", "data/upstream/sp3-basic.h5"},
        {"data/upstream/sp3-aggregate.h5", "data/upstream/sp3-threads-async.h5"},
        {"data/upstream/sp2-basic.h5", "data/upstream/sp3-gpu.h5"},
    };
    diff_options o;
    diff_options_init(&o);
    o.release_calls = true;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        char a[4096], b[4096];
        shared(a, sizeof a, pairs[i][0]);
        shared(b, sizeof b, pairs[i][1]);
        check_pair(a, b, &o, NULL);
    }
    /* one rank, and a rank missing on one side (the child's error crosses) */
    char a[4096], b[4096];
    shared(a, sizeof a, "data/real/solver_mpi4.h5");
    o.rank = 2;
    check_pair(a, a, &o, NULL);
    shared(b, sizeof b, "data/real/solver.h5");
    check_pair(a, b, &o, NULL);
    /* a filter: an excluded region's children hang on its parent */
    o.rank = -1;
    region_filter f;
    filter_init(&f);
    sv_error err;
    assert_int_equal(filter_add_exclude(&f, "^solve", &err), SV_OK);
    check_pair(a, b, &o, &f);
    filter_free(&f);
    filter_init(&f);
    assert_int_equal(filter_set_ranks(&f, "1,3", &err), SV_OK);
    check_pair(a, a, &o, &f);
    filter_free(&f);
}

static void test_fixtures(void **state)
{
    (void)state;
    char small[4096], demo[4096];
    sv_fixture_path(small, sizeof small, "small.h5");
    snprintf(demo, sizeof demo, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    diff_options o;
    diff_options_init(&o);
    o.release_calls = true;
    check_pair(demo, small, &o, NULL);
    check_pair(demo, demo, &o, NULL);
    check_pair(small, "/nonexistent/z.h5", &o, NULL);
    /* files whose load or nesting warns (cycles, orphans, overlaps, drops):
     * the same warnings, in the same order, before the same comparison */
    static const char *const warned[] = {"fault_cycle.h5",    "fault_bad_parent_only.h5",
                                         "col3_overlap.h5",   "fault_end_before_start.h5",
                                         "col3_badthread.h5", "col3_truncated.h5"};
    for (size_t i = 0; i < sizeof warned / sizeof *warned; i++) {
        char a[4096];
        sv_fixture_path(a, sizeof a, warned[i]);
        o.rank = -1;
        check_pair(a, small, &o, NULL);
        o.rank = 7; /* no such rank: the warnings, then the error */
        check_pair(a, a, &o, NULL);
    }
}

/* ------------------------------------------------------------ one sweep */

/* nest_rank_totals_parents (the child's one sweep) against profile_finish's
 * totals pass then nest_rank_parents, on the same file loaded twice without
 * nesting: the same parents and exclusive times per call, the same totals,
 * flags and warnings. */
static void check_one_sweep(const char *path)
{
    load_sink sink = load_sink_model(LOAD_FINISH_NO_NEST);
    load_options lo = {.sink = &sink};
    profile *a = NULL, *b = NULL;
    sv_error err;
    if (profile_load(path, &lo, &a, &err) != SV_OK) {
        assert_int_not_equal(profile_load(path, &lo, &b, &err), SV_OK);
        return;
    }
    assert_int_equal(profile_load(path, &lo, &b, &err), SV_OK);
    assert_int_equal(nest_compute_totals(a, &err), SV_OK);
    assert_int_equal(a->nranks, b->nranks);
    for (size_t k = 0; k < a->nranks; k++) {
        rank_data *x = &a->ranks[k], *y = &b->ranks[k];
        size_t n = x->ncalls ? x->ncalls : 1;
        int32_t *pa = malloc(n * sizeof *pa), *pb = malloc(n * sizeof *pb);
        int64_t *ea = malloc(n * sizeof *ea), *eb = malloc(n * sizeof *eb);
        assert_int_equal(nest_rank_parents(x, pa, ea, &err), SV_OK);
        assert_int_equal(nest_rank_totals_parents(y, pb, eb, &err), SV_OK);
        if (memcmp(pa, pb, x->ncalls * sizeof *pa) || memcmp(ea, eb, x->ncalls * sizeof *ea))
            fail_msg("%s: rank %d: the one sweep's parents or exclusive times differ", path,
                     x->rank);
        assert_int_equal(x->explicit_ids, y->explicit_ids);
        assert_int_equal(x->ninferred_lanes, y->ninferred_lanes);
        for (size_t j = 0; j < x->nregions; j++)
            assert_int_equal(x->regions[j]->st.exclusive_total_ns,
                             y->regions[j]->st.exclusive_total_ns);
        free(pa), free(pb), free(ea), free(eb);
    }
    assert_int_equal(a->nwarnings, b->nwarnings);
    for (size_t i = 0; i < a->nwarnings; i++)
        assert_string_equal(a->warnings[i], b->warnings[i]);
    profile_free(a);
    profile_free(b);
}

static void test_one_sweep(void **state)
{
    (void)state;
    static const char *const fixtures[] = {
        "small.h5",          "fault_cycle.h5",         "fault_bad_parent_only.h5",
        "col3_overlap.h5",   "col3_badthread.h5",      "fault_end_before_start.h5",
        "col3_mixed_ids.h5", "fault_orphan_parent.h5", "legacy_threads2.h5",
        "legacy_small.h5",   "nested_names.h5",        "col3_full.h5",
        "col2_full.h5",      "col3_truncated.h5",      "legacy_empty_region.h5"};
    for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
        char a[4096];
        sv_fixture_path(a, sizeof a, fixtures[i]);
        if (sv_file_exists(a))
            check_one_sweep(a);
    }
    char demo[4096];
    snprintf(demo, sizeof demo, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    check_one_sweep(demo);
    static const char *const shared_files[] = {"data/real/solver.h5",
                                               "data/real/solver_mpi4.h5",
                                               "data/real/solver_threads_small.h5",
                                               "data/real/recursive.h5",
                                               "data/extended/async_server.h5",
                                               "data/extended/recursion.h5",
                                               "data/upstream/sp3-threads-async.h5",
                                               "data/upstream/hdf5-schema-1.h5"};
    for (size_t i = 0; sv_shared_available() && i < sizeof shared_files / sizeof *shared_files;
         i++) {
        char a[4096];
        shared(a, sizeof a, shared_files[i]);
        check_one_sweep(a);
    }
}

/* ------------------------------------------------------------ the wire */

static wire_status recv_mem(const unsigned char *b, size_t len, const wire_section *sec,
                            profile **out, sv_error *err)
{
    sv_mem_src m = {b, len, 0, 7777};
    wire_src src = {sv_mem_read, &m, NULL};
    return wire_recv_section(&src, (uint64_t)1 << 30, sec, out, err);
}

/* demo.h5's side (prepared in-process) and its stream with the section;
 * *sec_at: where the section starts. */
static unsigned char *side_stream(diff_remote *r, size_t *len, size_t *sec_at)
{
    char demo[4096];
    snprintf(demo, sizeof demo, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    profile *p = NULL;
    sv_error err;
    load_sink sink = load_sink_model(LOAD_FINISH_NO_NEST); /* as the loading child: prepare nests */
    load_options lo = {.sink = &sink};
    if (profile_load(demo, &lo, &p, &err) != SV_OK)
        fail_msg("%s", err.msg);
    diff_options o;
    diff_options_init(&o);
    diff_remote_init(r, &o, NULL);
    assert_int_equal(diff_remote_prepare(r, &p, &err), SV_OK);
    assert_int_equal(p->nranks, 0);
    int fd = memfd_create("wire", 0), fd0 = memfd_create("wire0", 0);
    assert_true(fd >= 0 && fd0 >= 0);
    assert_int_equal(wire_send_profile_section(fd, p, false, &r->section), 0);
    assert_int_equal(wire_send_profile(fd0, p), 0);
    off_t end = lseek(fd, 0, SEEK_END), end0 = lseek(fd0, 0, SEEK_END);
    assert_true(end > end0 && end0 > 4);
    *sec_at = (size_t)end0 - 4; /* the stub's stream without its "END!" */
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    close(fd0);
    profile_free(p);
    *len = (size_t)end;
    return b;
}

/* Receives the side of stream s into r (its stub model freed). */
static void recv_side(const unsigned char *s, size_t len, diff_remote *r)
{
    diff_options o;
    diff_options_init(&o);
    diff_remote_init(r, &o, NULL);
    profile *q = NULL;
    sv_error err;
    assert_int_equal(recv_mem(s, len, &r->section, &q, &err), WIRE_PROFILE);
    assert_true(diff_remote_ready(r));
    assert_int_equal(q->nranks, 0);
    profile_free(q);
}

static void test_section_round_trip(void **state)
{
    (void)state;
    diff_remote sent, copy, got[2];
    size_t len, at;
    unsigned char *s = side_stream(&sent, &len, &at);
    assert_memory_equal(s + at, "SEC1", 4);
    recv_side(s, len, &copy);
    recv_side(s, len, &got[0]);
    recv_side(s, len, &got[1]);
    /* the side as sent and as received, each compared with itself */
    diff_options o;
    diff_options_init(&o);
    diff_result *a = NULL, *b = NULL;
    sv_error err;
    assert_int_equal(diff_begin(&o, NULL, &a, &err), SV_OK);
    assert_int_equal(diff_begin(&o, NULL, &b, &err), SV_OK);
    assert_int_equal(diff_add_remote(a, 0, "x", &sent, &err), SV_OK);
    assert_int_equal(diff_add_remote(a, 1, "x", &copy, &err), SV_OK);
    assert_int_equal(diff_add_remote(b, 0, "x", &got[0], &err), SV_OK);
    assert_int_equal(diff_add_remote(b, 1, "x", &got[1], &err), SV_OK);
    assert_int_equal(diff_finish(a, &err), SV_OK);
    assert_int_equal(diff_finish(b, &err), SV_OK);
    same_diff(a, b, "round trip");
    assert_true(b->npaths > 3);
    assert_true(b->nsamples[0] > 100);
    assert_int_equal(b->nflag[1][0] + b->nflag[1][1], 0); /* A/A */
    diff_free(a);
    diff_free(b);
    free(s);
}

/* The stream is rejected, with no side left behind. */
static void expect_broken(const unsigned char *s, size_t len, bool with_section)
{
    diff_options o;
    diff_options_init(&o);
    diff_remote r;
    diff_remote_init(&r, &o, NULL);
    profile *q = NULL;
    sv_error err;
    assert_int_equal(recv_mem(s, len, with_section ? &r.section : NULL, &q, &err), WIRE_BROKEN);
    assert_null(q);
    assert_false(diff_remote_ready(&r));
    assert_non_null(strstr(err.msg, "ended early"));
}

static void put_u64(unsigned char *at, uint64_t v)
{
    memcpy(at, &v, sizeof v);
}

static uint64_t get_u64(const unsigned char *at)
{
    uint64_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

#define SIDE_BYTES (5 * 8 + DV_COUNT * 8 + 2 * 8)

static void test_section_rejected(void **state)
{
    (void)state;
    diff_remote sent;
    size_t len, at;
    unsigned char *s = side_stream(&sent, &len, &at);
    diff_remote_free(&sent);
    /* every prefix */
    for (size_t cut = 0; cut < len; cut += cut + 16 >= at && cut < at + 16384 ? 1 : 997)
        expect_broken(s, cut, true);
    /* a section nobody asked for; none where one is asked for */
    expect_broken(s, len, false);
    unsigned char *t = malloc(len);
    assert_non_null(t);
    memcpy(t, s, at);
    memcpy(t + at, "END!", 4);
    expect_broken(t, at + 4, true);
    /* walk to the paths: names (string + side each), then the path count */
    assert_int_equal(get_u64(s + at + 4), SV_OK); /* the child's status */
    memcpy(t, s, len);
    put_u64(t + at + 4, SV_ERR_USAGE + 1); /* no such error */
    expect_broken(t, len, true);
    size_t pos = at + 4 + 8;
    uint64_t nnames = get_u64(s + pos);
    pos += 8;
    for (uint64_t i = 0; i < nnames; i++)
        pos += 8 + get_u64(s + pos) + SIDE_BYTES;
    assert_true(get_u64(s + pos) > 2);
    size_t path1 = pos + 8; /* name, parent, side */
    /* path 1's parent: itself (a parent must come first) */
    memcpy(t, s, len);
    put_u64(t + path1 + 8, 1);
    expect_broken(t, len, true);
    /* path 1's name out of range */
    memcpy(t, s, len);
    put_u64(t + path1, nnames);
    expect_broken(t, len, true);
    /* path 1's samples beyond the end: off, then n */
    memcpy(t, s, len);
    put_u64(t + path1 + 16 + SIDE_BYTES - 16, UINT64_MAX - 1);
    expect_broken(t, len, true);
    memcpy(t, s, len);
    put_u64(t + path1 + 16 + SIDE_BYTES - 8, (uint64_t)1 << 40);
    expect_broken(t, len, true);
    /* flipped bytes in the section: a side or an error, never a crash */
    srand(11);
    for (int i = 0; i < 400; i++) {
        memcpy(t, s, len);
        size_t k = at + (size_t)rand() % (len - at);
        t[k] ^= (unsigned char)(1 + rand() % 255);
        diff_options o;
        diff_options_init(&o);
        diff_remote r;
        diff_remote_init(&r, &o, NULL);
        profile *q = NULL;
        sv_error err;
        wire_status ws = recv_mem(t, len, &r.section, &q, &err);
        assert_true(ws == WIRE_PROFILE || (q == NULL && !diff_remote_ready(&r)));
        if (ws == WIRE_PROFILE) { /* whatever it holds, it merges and frees */
            diff_result *d = NULL;
            assert_int_equal(diff_begin(&o, NULL, &d, &err), SV_OK);
            if (diff_add_remote(d, 0, "x", &r, &err) == SV_OK)
                (void)diff_finish(d, &err);
            diff_free(d);
        }
        diff_remote_free(&r);
        profile_free(q);
    }
    free(t);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),           cmocka_unit_test(test_one_sweep),
        cmocka_unit_test(test_section_round_trip), cmocka_unit_test(test_section_rejected),
        cmocka_unit_test(test_same_as_in_process),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
