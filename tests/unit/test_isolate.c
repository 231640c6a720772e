/* The isolated load (isolate.c) and its wire (wire.c).
 *
 * Identity: every shared profile and fixture loaded in a child process is
 * the same model as loaded in-process.  "The same" is checked on the
 * wire's own bytes (the wire carries every field of the model, statistics
 * bit for bit; a field it forgot trips its _Static_assert) and, independently
 * of the wire, on a few values read from both models.
 *
 * Robustness of the receiver: every prefix of a stream and streams with
 * bytes flipped give an error, never a crash or a leak (ASan); a budget
 * smaller than the model gives WIRE_BUDGET. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/isolate.h"
#include "load/loader.h"
#include "model/sanity.h"
#include "testutil.h"
#include "isolate/wire.h"

/* The wire stream of p, malloc'ed. */
static unsigned char *stream_of(const profile *p, size_t *len)
{
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile(fd, p), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end > 0);
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static wire_status recv_mem(const unsigned char *b, size_t len, uint64_t budget, profile **out,
                            sv_error *err)
{
    sv_mem_src m = {b, len, 0, 7777};
    wire_src src = {sv_mem_read, &m, NULL};
    return wire_recv(&src, budget, out, err);
}

static void check_same(const char *path)
{
    profile *a = NULL, *b = NULL;
    sv_error e1, e2;
    sv_err r1 = profile_load(path, NULL, &a, &e1);
    if (r1 == SV_OK)
        profile_check_values(a); /* as the loading child does */
    isolate_options io = {0};
    sv_err r2 = profile_load_isolated(path, &io, &b, &e2);
    assert_int_equal(r1, r2);
    if (r1 != SV_OK) {
        assert_string_equal(e1.msg, e2.msg);
        return;
    }
    size_t la, lb;
    unsigned char *sa = stream_of(a, &la), *sb = stream_of(b, &lb);
    if (la != lb || memcmp(sa, sb, la) != 0)
        fail_msg("%s: the isolated load differs from the in-process one", path);
    /* Independently of the wire: the statistics and the numbering. */
    assert_int_equal(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const region *x = a->regions[i], *y = b->regions[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->gidx0, y->gidx0);
        assert_memory_equal(&x->st, &y->st, sizeof x->st);
        assert_ptr_equal(y->owner->owner, b);
        if (x->n)
            assert_memory_equal(x->start_ns, y->start_ns, x->n * sizeof *x->start_ns);
    }
    assert_int_equal(a->nwarnings, b->nwarnings);
    assert_int_equal(a->min_start_ns, b->min_start_ns);
    free(sa);
    free(sb);
    profile_free(a);
    profile_free(b);
}

static void check_dir(const char *dir, const char *suffix, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name), s = strlen(suffix);
        if (n < s || strcmp(de->d_name + n - s, suffix) != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_same(path);
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
        check_dir(dir, ".h5", &count);
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

static void test_every_prefix_fails(void **state)
{
    (void)state;
    profile *p = demo_profile();
    size_t len;
    unsigned char *s = stream_of(p, &len);
    profile *q = NULL;
    sv_error err;
    assert_int_equal(recv_mem(s, len, 0, &q, &err), WIRE_PROFILE);
    profile_free(q);
    /* Every prefix up to 4 KiB, then a sample: an error, never a model. */
    for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 997) {
        assert_int_equal(recv_mem(s, cut, 0, &q, &err), WIRE_BROKEN);
        assert_null(q);
        assert_non_null(strstr(err.msg, "ended early"));
    }
    free(s);
    profile_free(p);
}

static void test_flipped_bytes(void **state)
{
    (void)state;
    profile *p = demo_profile();
    size_t len;
    unsigned char *s = stream_of(p, &len);
    unsigned char *t = malloc(len);
    assert_non_null(t);
    srand(14);
    /* Whatever the bytes, a model or an error; the model, if any, frees. */
    for (int i = 0; i < 400; i++) {
        memcpy(t, s, len);
        size_t at = (size_t)rand() % (len < 65536 ? len : 65536);
        t[at] ^= (unsigned char)(1 + rand() % 255);
        profile *q = NULL;
        sv_error err;
        wire_status ws = recv_mem(t, len, (uint64_t)1 << 30, &q, &err);
        assert_true(ws == WIRE_PROFILE || q == NULL);
        profile_free(q);
    }
    free(t);
    free(s);
    profile_free(p);
}

static void test_budget(void **state)
{
    (void)state;
    profile *p = demo_profile();
    size_t len;
    unsigned char *s = stream_of(p, &len);
    profile *q = NULL;
    sv_error err;
    assert_int_equal(recv_mem(s, len, 4096, &q, &err), WIRE_BUDGET);
    assert_null(q);
    assert_non_null(strstr(err.msg, "memory budget"));
    assert_int_equal(err.code, SV_ERR_NOMEM);
    free(s);
    profile_free(p);
}

static void test_error_message_crosses(void **state)
{
    (void)state;
    profile *p = NULL;
    sv_error err;
    isolate_options io = {0};
    assert_int_equal(profile_load_isolated("/nonexistent/x.h5", &io, &p, &err), SV_ERR_IO);
    assert_null(p);
    assert_string_equal(err.msg, "/nonexistent/x.h5: No such file or directory");
}

/* Two loads in flight (isolate_start, then isolate_collect in the other
 * order): each gives the model an in-process load gives; a failed start's
 * error comes at its collect; a cancelled load leaves no child behind. */
static void test_two_in_flight(void **state)
{
    (void)state;
    char small[4096], demo[4096];
    sv_fixture_path(small, sizeof small, "small.h5");
    snprintf(demo, sizeof demo, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    const char *path[2] = {demo, small};
    isolate_options io = {0};
    isolate_load *ld[2] = {isolate_start(path[0], &io), isolate_start(path[1], &io)};
    assert_non_null(ld[0]);
    assert_non_null(ld[1]);
    for (int k = 1; k >= 0; k--) {
        profile *want = NULL, *got = NULL;
        sv_error err;
        if (profile_load(path[k], NULL, &want, &err) != SV_OK)
            fail_msg("%s", err.msg);
        profile_check_values(want);
        if (isolate_collect(ld[k], &got, &err) != SV_OK)
            fail_msg("%s: %s", path[k], err.msg);
        size_t lw, lg;
        unsigned char *sw = stream_of(want, &lw), *sg = stream_of(got, &lg);
        assert_int_equal(lw, lg);
        assert_memory_equal(sw, sg, lw);
        free(sw);
        free(sg);
        profile_free(want);
        profile_free(got);
    }
    /* the error of a load that cannot start waits for its collect */
    isolate_load *bad = isolate_start("/nonexistent/y.h5", &io);
    isolate_load *good = isolate_start(small, &io);
    profile *p = NULL;
    sv_error err;
    assert_int_equal(isolate_collect(bad, &p, &err), SV_ERR_IO);
    assert_null(p);
    assert_string_equal(err.msg, "/nonexistent/y.h5: No such file or directory");
    isolate_cancel(good);
    /* every child reaped */
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_parse_size(void **state)
{
    (void)state;
    uint64_t b = 0;
    assert_true(isolate_parse_size("512M", &b));
    assert_int_equal(b, 512ull << 20);
    assert_true(isolate_parse_size("2G", &b));
    assert_int_equal(b, 2ull << 30);
    assert_true(isolate_parse_size("1.5GiB", &b));
    assert_int_equal(b, 3ull << 29);
    assert_true(isolate_parse_size("4096", &b));
    assert_int_equal(b, 4096);
    assert_false(isolate_parse_size("", &b));
    assert_false(isolate_parse_size("0", &b));
    assert_false(isolate_parse_size("-1G", &b));
    assert_false(isolate_parse_size("12X", &b));
    assert_false(isolate_parse_size("1e30", &b));
    assert_true(isolate_default_budget() >= (256ull << 20));
}

/* 0 is the default budget, half the RAM (computed here from sysconf), at least 256 MiB; any
 * other value is the budget itself. */
static void test_budget_or_default(void **state)
{
    (void)state;
    uint64_t half = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 2;
    uint64_t want = half < (256ull << 20) ? 256ull << 20 : half;
    assert_int_equal(isolate_budget_or_default(0), want);
    assert_int_equal(isolate_budget_or_default(5ull << 20), 5ull << 20);
    assert_int_equal(isolate_budget_or_default(1), 1);
}

/* --- wire_send_profile_final: columns released as they are lent ---- */

#define FINAL_N 300000 /* 2.4 MB a column: lent by vmsplice, whole pages released */

/* Region j of demo's first rank gets FINAL_N calls: start 1000 i + j, end start + 7 + j; its
 * other per-call columns are dropped. */
static void final_columns(region *r, int j)
{
    free(r->start_ns), free(r->end_ns), free(r->call_ids), free(r->parent_ids);
    free(r->thread_ids), free(r->task_ids), free(r->await_ns), free(r->gpu_ns);
    free(r->own_excl_ns);
    if (r->event_meta)
        for (size_t i = 0; i < r->n; i++)
            free(r->event_meta[i]);
    free(r->event_meta);
    r->call_ids = r->parent_ids = r->thread_ids = r->task_ids = NULL;
    r->await_ns = r->gpu_ns = r->own_excl_ns = NULL;
    r->event_meta = NULL;
    r->n = FINAL_N;
    r->has_event_data = true;
    r->start_ns = malloc(FINAL_N * sizeof(int64_t));
    r->end_ns = malloc(FINAL_N * sizeof(int64_t));
    assert_non_null(r->start_ns);
    assert_non_null(r->end_ns);
    for (size_t i = 0; i < FINAL_N; i++) {
        r->start_ns[i] = 1000 * (int64_t)i + j;
        r->end_ns[i] = r->start_ns[i] + 7 + j;
    }
}

static ssize_t fd_read(void *ctx, void *buf, size_t n)
{
    return read(*(int *)ctx, buf, n);
}

/* Sends p by wire_send_profile_final from a child over a pipe; the child exits 1 when the middle
 * of region 0's start column still holds its value afterwards (not released), 0 when it reads
 * zero.  Returns the model received and sets *released. */
static profile *final_roundtrip(profile *p, bool *released)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        int e = wire_send_profile_final(fds[1], p);
        close(fds[1]);
        _exit(e ? 2 : p->ranks[0].regions[0]->start_ns[FINAL_N / 2] != 0);
    }
    close(fds[1]);
    wire_src src = {fd_read, &fds[0], NULL};
    profile *q = NULL;
    sv_error err;
    assert_int_equal(wire_recv(&src, (uint64_t)1 << 30, &q, &err), WIRE_PROFILE);
    close(fds[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) < 2);
    *released = WEXITSTATUS(st) == 0;
    return q;
}

static void check_final_region(const region *r, int j)
{
    assert_int_equal(r->n, FINAL_N);
    for (size_t i = 0; i < FINAL_N; i++) {
        if (r->start_ns[i] != 1000 * (int64_t)i + j || r->end_ns[i] != r->start_ns[i] + 7 + j)
            fail_msg("region %d call %zu: start %lld end %lld", j, i, (long long)r->start_ns[i],
                     (long long)r->end_ns[i]);
    }
}

static void test_send_final(void **state)
{
    (void)state;
    profile *p = demo_profile();
    assert_true(p->ranks[0].nregions >= 2);
    region *r0 = p->ranks[0].regions[0], *r1 = p->ranks[0].regions[1];
    final_columns(r0, 0);
    final_columns(r1, 1);
    /* Disjoint columns: every value arrives, the sender's pages are released. */
    bool released = false;
    profile *q = final_roundtrip(p, &released);
    assert_true(released);
    check_final_region(q->ranks[0].regions[0], 0);
    check_final_region(q->ranks[0].regions[1], 1);
    profile_free(q);
    /* A column shared by two regions would reach the second one as zeros: nothing is released
     * and both arrive whole. */
    int64_t *own = r1->start_ns;
    for (size_t i = 0; i < FINAL_N; i++)
        r1->end_ns[i] = r0->start_ns[i] + 7 + 1;
    r1->start_ns = r0->start_ns;
    q = final_roundtrip(p, &released);
    assert_false(released);
    check_final_region(q->ranks[0].regions[0], 0);
    const region *g = q->ranks[0].regions[1];
    for (size_t i = 0; i < FINAL_N; i++)
        if (g->start_ns[i] != 1000 * (int64_t)i || g->end_ns[i] != g->start_ns[i] + 8)
            fail_msg("shared column: call %zu: start %lld", i, (long long)g->start_ns[i]);
    profile_free(q);
    r1->start_ns = own;
    profile_free(p);
}

static void test_warn_cap(void **state)
{
    (void)state;
    profile *p = profile_new("x.h5");
    assert_non_null(p);
    for (int i = 0; i < 200250; i++) {
        profile_warn(p,
                     "x.h5: rank 0: region r%d: dataset thread_ids: %d elements, expected %d; "
                     "column dropped",
                     i, i, i + 1);
        if (i % 1000 == 0)
            profile_warn(p, "x.h5: rank 0: region r%d: a call ends before it starts", i);
    }
    /* 100 of the first kind, its "more" line, 100 of the second, its "more" line. */
    assert_int_equal(p->nwarnings, 202);
    assert_string_equal(p->warnings[0], "x.h5: rank 0: region r0: dataset thread_ids: 0 elements, "
                                        "expected 1; column dropped");
    size_t more1 = 0, more2 = 0;
    for (size_t i = 0; i < p->nwarnings; i++) {
        if (strncmp(p->warnings[i], "and ", 4) != 0)
            continue;
        if (strstr(p->warnings[i], "column dropped"))
            more1++, assert_string_equal(p->warnings[i],
                                         "and 200 150 more like it: 100 elements, expected 101; "
                                         "column dropped");
        else
            more2++, assert_string_equal(p->warnings[i], "and 101 more like it: a call ends "
                                                         "before it starts");
    }
    assert_int_equal(more1, 1);
    assert_int_equal(more2, 1);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_model),
        cmocka_unit_test(test_every_prefix_fails),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_error_message_crosses),
        cmocka_unit_test(test_two_in_flight),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_budget_or_default),
        cmocka_unit_test(test_warn_cap),
        cmocka_unit_test(test_send_final),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
