/* The viewer's deferred load (isolate.h defer_stats): the model first, its
 * statistics after, computed in the viewer from a copy (stats_local.c, the
 * default) or in the child and sent as a trailer (wire_stats.c,
 * isolate_defer.c; stats_in_child), on a worker thread (stats_job.c); and
 * the stored statistics shown meanwhile (stored_view.c).
 *
 * Identity: a deferred load, its statistics installed, is the in-process
 * model byte for byte (the wire's own bytes, which carry every field),
 * on every fixture and shared profile; before they are installed the
 * regions' statistics are still zero (they really come later).
 *
 * The trailer's receiver: every prefix and every flipped count is a
 * one-line error, never a crash; a trailer for another model (other
 * counts) is refused; the child's error message crosses. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/isolate.h"
#include "load/loader.h"
#include "model/calls_job.h"
#include "model/nest_share.h"
#include "model/region.h"
#include "model/sanity.h"
#include "isolate/stats_job.h"
#include "isolate/stats_local.h"
#include "model/stored_view.h"
#include "testutil.h"
#include "isolate/wire.h"
#include "isolate/wire_stats.h"

/* The bytes fd holds, malloc'ed. */
static unsigned char *fd_bytes(int fd, size_t *len)
{
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end > 0);
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static unsigned char *model_bytes(const profile *p, size_t *len)
{
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile(fd, p), 0);
    return fd_bytes(fd, len);
}

static void assert_same_model(const profile *a, const profile *b, const char *path)
{
    size_t la, lb;
    unsigned char *sa = model_bytes(a, &la), *sb = model_bytes(b, &lb);
    if (la != lb || memcmp(sa, sb, la) != 0)
        fail_msg("%s: the deferred load differs from the in-process one", path);
    free(sa);
    free(sb);
    /* Independently of the wire. */
    assert_int_equal(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++)
        assert_memory_equal(&a->regions[i]->st, &b->regions[i]->st, sizeof a->regions[i]->st);
    assert_int_equal(a->nwarnings, b->nwarnings);
    assert_int_equal(a->has_min_start, b->has_min_start);
    assert_int_equal(a->min_start_ns, b->min_start_ns);
}

static profile *load_in_process(const char *path, sv_err *rc, sv_error *err)
{
    profile *p = NULL;
    *rc = profile_load(path, NULL, &p, err);
    if (*rc == SV_OK)
        profile_check_values(p); /* as the loading child does */
    return p;
}

/* The regions' statistics before the trailer: none computed (a region
 * starting before 0 gets them early, to be dropped if they overflow). */
static void assert_not_computed(const profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        bool early = false;
        for (size_t k = 0; k < r->n && !early; k++)
            early = r->start_ns[k] < 0;
        if (r->has_event_data && r->n && !early)
            assert_int_equal(r->st.num_calls, 0);
    }
}

/* The statistics of a deferred load's tail: computed here or received. */
static sv_err tail_stats(isolate_tail *tail, const profile *b, wire_stats **st, sv_error *err)
{
    if (!isolate_tail_local(tail))
        return isolate_tail_recv(tail, st, err);
    stats_local *c = stats_local_new(b);
    assert_non_null(c);
    return stats_local_run(c, st, err);
}

static void check_deferred(const char *path)
{
    sv_err r1, r2;
    sv_error e1, e2;
    profile *a = load_in_process(path, &r1, &e1);
    for (int in_child = 0; in_child < 2; in_child++) {
        /* Without a tail: the load waits for the statistics. */
        profile *b = NULL;
        isolate_options io = {.defer_stats = true, .stats_in_child = in_child};
        r2 = profile_load_isolated(path, &io, &b, &e2);
        assert_int_equal(r1, r2);
        if (r1 != SV_OK) {
            assert_string_equal(e1.msg, e2.msg);
            return;
        }
        assert_same_model(a, b, path);
        profile_free(b);
        /* With a tail: the model now, the statistics when asked for. */
        isolate_tail *tail = NULL;
        io.tail = &tail;
        assert_int_equal(profile_load_isolated(path, &io, &b, &e2), SV_OK);
        assert_non_null(tail);
        assert_int_equal(isolate_tail_local(tail), !in_child);
        assert_not_computed(b);
        wire_stats *st = NULL;
        if (tail_stats(tail, b, &st, &e2) != SV_OK)
            fail_msg("%s: %s", path, e2.msg);
        isolate_tail_free(tail);
        assert_true(wire_stats_install(b, st));
        wire_stats_free(st);
        assert_same_model(a, b, path);
        profile_free(b);
    }
    profile_free(a);
}

static void check_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 3 || strcmp(de->d_name + n - 3, ".h5") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_deferred(path);
        (*count)++;
    }
    closedir(d);
}

static void test_same_model(void **state)
{
    (void)state;
    char dir[2048]; /* with a slash and a name, within a 4096-byte path */
    size_t count = 0;
    for (size_t i = 0; sv_profile_dir(i, dir, sizeof dir); i++)
        check_dir(dir, &count);
    assert_true(count >= 10);
}

static profile *demo_profile(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("%s", err.msg);
    return p;
}

static wire_status recv_mem(const unsigned char *b, size_t len, size_t nregions, size_t nranks,
                            wire_stats **out, sv_error *err)
{
    sv_mem_src m = {b, len, 0, 77};
    wire_src src = {sv_mem_read, &m, NULL};
    sv_error_clear(err);
    return wire_recv_stats(&src, nregions, nranks, 0, out, err);
}

static unsigned char *trailer_of(const profile *p, size_t warn_from, size_t *len)
{
    int fd = memfd_create("trailer", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_stats(fd, p, warn_from), 0);
    return fd_bytes(fd, len);
}

/* A full trailer installs into a copy whose statistics were wiped. */
static void test_roundtrip(void **state)
{
    (void)state;
    profile *p = demo_profile(), *q = demo_profile();
    profile_warn(p, "a warning that came with the statistics");
    for (size_t i = 0; i < q->nregions; i++)
        memset(&q->regions[i]->st, 0, sizeof q->regions[i]->st);
    q->min_start_ns = 0;
    size_t len;
    unsigned char *b = trailer_of(p, p->nwarnings - 1, &len);
    wire_stats *st = NULL;
    sv_error err;
    assert_int_equal(recv_mem(b, len, q->nregions, q->nranks, &st, &err), WIRE_PROFILE);
    assert_true(wire_stats_install(q, st));
    wire_stats_free(st);
    assert_same_model(p, q, "demo");
    assert_string_equal(q->warnings[q->nwarnings - 1], "a warning that came with the statistics");
    free(b);
    profile_free(p);
    profile_free(q);
}

static void assert_one_line(const sv_error *err)
{
    assert_true(err->msg[0] != '\0');
    assert_null(strchr(err->msg, '\n'));
}

static void test_every_prefix_fails(void **state)
{
    (void)state;
    profile *p = demo_profile();
    profile_warn(p, "w");
    size_t len;
    unsigned char *b = trailer_of(p, 0, &len);
    for (size_t n = 0; n < len; n++) {
        wire_stats *st = NULL;
        sv_error err;
        assert_int_equal(recv_mem(b, n, p->nregions, p->nranks, &st, &err), WIRE_BROKEN);
        assert_null(st);
        assert_one_line(&err);
        assert_non_null(strstr(err.msg, "statistics"));
    }
    free(b);
    profile_free(p);
}

/* Every word of the trailer made huge or off by one: an error or a
 * well-formed result, never a crash or a leak (ASan). */
static void test_flipped_words(void **state)
{
    (void)state;
    profile *p = demo_profile();
    profile_warn(p, "w");
    size_t len;
    unsigned char *b = trailer_of(p, 0, &len);
    for (size_t at = 0; at + 8 <= len; at += 8) {
        for (int how = 0; how < 3; how++) {
            unsigned char *c = malloc(len);
            assert_non_null(c);
            memcpy(c, b, len);
            uint64_t v;
            memcpy(&v, c + at, 8);
            v = how == 0 ? UINT64_MAX : how == 1 ? v + 1 : v ^ 0x8000000000000000ull;
            memcpy(c + at, &v, 8);
            wire_stats *st = NULL;
            sv_error err;
            wire_status s = recv_mem(c, len, p->nregions, p->nranks, &st, &err);
            if (s != WIRE_PROFILE)
                assert_one_line(&err);
            wire_stats_free(st);
            free(c);
        }
    }
    free(b);
    profile_free(p);
}

/* A trailer for another model: counts that do not match are refused. */
static void test_other_model(void **state)
{
    (void)state;
    profile *p = demo_profile();
    size_t len;
    unsigned char *b = trailer_of(p, p->nwarnings, &len);
    wire_stats *st = NULL;
    sv_error err;
    assert_int_equal(recv_mem(b, len, p->nregions + 1, p->nranks, &st, &err), WIRE_BROKEN);
    assert_int_equal(recv_mem(b, len, p->nregions, p->nranks + 1, &st, &err), WIRE_BROKEN);
    assert_one_line(&err);
    /* Received for this model, installed into a smaller one: refused, untouched. */
    assert_int_equal(recv_mem(b, len, p->nregions, p->nranks, &st, &err), WIRE_PROFILE);
    profile *q = profile_new("other");
    assert_false(wire_stats_install(q, st));
    assert_int_equal(q->nwarnings, 0);
    profile_free(q);
    wire_stats_free(st);
    free(b);
    profile_free(p);
}

static void test_error_crosses(void **state)
{
    (void)state;
    int fd = memfd_create("err", 0);
    sv_error e;
    sv_error_set(&e, SV_ERR_NOMEM, "f.h5: out of memory for 3 calls");
    assert_int_equal(wire_send_error(fd, &e), 0);
    size_t len;
    unsigned char *b = fd_bytes(fd, &len);
    wire_stats *st = NULL;
    sv_error err;
    assert_int_equal(recv_mem(b, len, 1, 1, &st, &err), WIRE_ERROR);
    assert_null(st);
    assert_int_equal(err.code, SV_ERR_NOMEM);
    assert_string_equal(err.msg, "f.h5: out of memory for 3 calls");
    free(b);
}

static const char *demo_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    return buf;
}

/* The worker: held until released, then installed by this thread; the
 * model equals the in-process one. */
static void check_job_hold(bool in_child)
{
    char path[4096];
    demo_path(path, sizeof path);
    sv_err rc;
    sv_error err;
    profile *a = load_in_process(path, &rc, &err), *b = NULL;
    assert_int_equal(rc, SV_OK);
    isolate_tail *tail = NULL;
    isolate_options io = {.defer_stats = true, .tail = &tail, .stats_in_child = in_child};
    assert_int_equal(profile_load_isolated(path, &io, &b, &err), SV_OK);
    stats_job *j = NULL;
    assert_int_equal(stats_job_start(tail, b, true, 0, NULL, &j, &err), SV_OK);
    usleep(200 * 1000); /* time enough to receive: still not published */
    assert_false(stats_job_done(j));
    assert_not_computed(b);
    stats_job_release(j);
    stats_job_wait(j);
    assert_true(stats_job_done(j));
    size_t nnew = 99;
    assert_int_equal(stats_job_install(j, b, &nnew, &err), SV_OK);
    assert_int_equal(nnew, a->nwarnings - (b->nwarnings - nnew));
    assert_same_model(a, b, path);
    profile_free(a);
    profile_free(b);
}

static void test_job_hold(void **state)
{
    (void)state;
    check_job_hold(false);
    check_job_hold(true);
}

/* The statistics given the per-call build's totals (nest_share.h): the
 * same model as the in-process load's, whether the build puts every rank,
 * is cancelled before it starts (its ranks then swept by the statistics),
 * or never starts (the share closed). */
static void check_job_share(const char *name, int how)
{
    char path[4096];
    sv_fixture_path(path, sizeof path, name);
    sv_err rc;
    sv_error err;
    profile *a = load_in_process(path, &rc, &err), *b = NULL;
    assert_int_equal(rc, SV_OK);
    isolate_tail *tail = NULL;
    isolate_options io = {.defer_stats = true, .tail = &tail};
    assert_int_equal(profile_load_isolated(path, &io, &b, &err), SV_OK);
    assert_true(isolate_tail_local(tail));
    nest_share *sh = nest_share_new(b->nranks);
    assert_non_null(sh);
    stats_job *j = NULL;
    assert_int_equal(stats_job_start(tail, b, false, 0, sh, &j, &err), SV_OK);
    calls_job *cj = NULL;
    if (how < 2)
        assert_int_equal(calls_job_start(b, how == 1, 0, sh, &cj, &err), SV_OK);
    else
        nest_share_close(sh);
    nest_share_unref(sh);
    if (how == 1)
        calls_job_cancel(cj);
    stats_job_wait(j);
    assert_int_equal(stats_job_install(j, b, NULL, &err), SV_OK);
    if (how == 0) {
        calls_job_wait(cj);
        assert_int_equal(calls_job_install(cj, &err), SV_OK);
    }
    assert_same_model(a, b, path);
    for (size_t i = 0; i < a->nranks; i++)
        assert_int_equal(a->ranks[i].ninferred_lanes, b->ranks[i].ninferred_lanes);
    for (size_t i = 0; i < a->nwarnings; i++)
        assert_string_equal(a->warnings[i], b->warnings[i]);
    profile_free(a);
    profile_free(b);
}

static void test_job_share(void **state)
{
    (void)state;
    static const char *const names[] = {
        "legacy_small.h5", "flame.h5",         "legacy_threads2.h5",     "col3_full.h5",
        "col3_overlap.h5", "fault_cycle.h5",   "fault_orphan_parent.h5", "small.h5",
        "pool.h5",         "col3_mixed_ids.h5"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        for (int how = 0; how < 3; how++)
            check_job_share(names[k], how);
}

/* Quitting before the statistics are in: the child is killed, the worker
 * joined, nothing leaks (ASan) and nothing hangs. */
static void test_job_cancel(void **state)
{
    (void)state;
    char path[4096];
    demo_path(path, sizeof path);
    for (int k = 0; k < 6; k++) {
        profile *b = NULL;
        isolate_tail *tail = NULL;
        sv_error err;
        isolate_options io = {.defer_stats = true, .tail = &tail, .stats_in_child = k >= 3};
        assert_int_equal(profile_load_isolated(path, &io, &b, &err), SV_OK);
        stats_job *j = NULL;
        assert_int_equal(
            stats_job_start(tail, b, k % 3 == 1, k % 3 == 2 ? 60000 : 0, NULL, &j, &err), SV_OK);
        if (k % 3 == 2)
            usleep(50 * 1000);
        stats_job_cancel(j);
        profile_free(b);
    }
    /* A tail never received: freed (its child killed). */
    profile *b = NULL;
    isolate_tail *tail = NULL;
    sv_error err;
    isolate_options io = {.defer_stats = true, .tail = &tail, .stats_in_child = true};
    assert_int_equal(profile_load_isolated(path, &io, &b, &err), SV_OK);
    isolate_tail_free(tail);
    profile_free(b);
}

/* The stored view: summary-only copies giving the file's own figures, and
 * the way back to the real regions. */
static void test_stored_view(void **state)
{
    (void)state;
    profile *p = demo_profile();
    assert_true(stored_view_useful(p));
    profile *v = stored_view_new(p);
    assert_non_null(v);
    assert_int_equal(v->nregions, p->nregions);
    size_t stored = 0;
    for (size_t i = 0; i < v->nregions; i++) {
        region *r = v->regions[i], *real = p->regions[i];
        assert_false(r->has_event_data);
        assert_int_equal(r->n, 0);
        assert_null(r->start_ns);
        assert_string_equal(r->name, real->name);
        assert_int_equal(r->rank, real->rank);
        assert_ptr_equal(stored_view_real(v, p, r), real);
        assert_ptr_equal(r->owner->owner, v);
        double t;
        bool known = region_stat_ns(r, RSTAT_TOTAL, &t);
        bool has = real->has_stored_summary && (real->stored.known & (1u << SUM_TOTAL));
        assert_int_equal(known, has);
        if (has) {
            assert_true(t == real->stored.v[SUM_TOTAL]);
            stored++;
        }
    }
    assert_true(stored > 0);
    assert_null(stored_view_real(v, p, p->regions[0])); /* not a view's region */
    stored_view_free(v);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_model),         cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_every_prefix_fails), cmocka_unit_test(test_flipped_words),
        cmocka_unit_test(test_other_model),        cmocka_unit_test(test_error_crosses),
        cmocka_unit_test(test_job_hold),           cmocka_unit_test(test_job_cancel),
        cmocka_unit_test(test_job_share),          cmocka_unit_test(test_stored_view),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
