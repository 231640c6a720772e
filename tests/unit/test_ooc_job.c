/* ooc_job: an out-of-core window read on a worker thread (the viewer's
 * timeline).  small.h5 (tests/gen/FIXTURES.md): outer [1000,1500]
 * [2000,3000], inner [1100,1200] [2100,2600] [2500,2900], io/write
 * [1300,1300]; the calls overlapping [2000, 2200) are outer[1] and inner[1]
 * by hand.  A held job publishes nothing until released; cancelling a held
 * or running job returns and frees everything; a window of a file gone since
 * the open is an error naming it.  Under --enable-tsan this runs the worker
 * beside the test's thread (the worker forks the loading child: TSan needs
 * die_after_fork=0, as CI sets). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ooc/ooc.h"
#include "ooc/ooc_job.h"
#include "testutil.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static ooc_file *open_file(const char *path)
{
    isolate_options io = {.budget = (uint64_t)256 << 20};
    ooc_file *f = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (ooc_open(path, &io, &f, &err) != SV_OK)
        fail_msg("ooc_open %s: %s", path, err.msg);
    return f;
}

static ooc_file *open_small(void)
{
    char path[1024];
    sv_fixture_path(path, sizeof path, "small.h5");
    if (!sv_file_exists(path))
        fail_msg("fixture %s is missing: run 'make check' so svgen writes tests/fixtures", path);
    return open_file(path);
}

/* The window's calls overlapping [t0, t1), as "name start end" lines in
 * rank and region order. */
static void overlapping(const profile *w, int64_t t0, int64_t t1, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < w->nranks; k++) {
        const rank_data *rk = &w->ranks[k];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            for (size_t i = 0; i < r->n; i++) {
                int64_t s = r->start_ns[i], e = r->end_ns[i] > s ? r->end_ns[i] : s + 1;
                if (s < t1 && e > t0 && used < len)
                    used += (size_t)snprintf(buf + used, len - used, "%s %lld %lld\n", r->name,
                                             (long long)r->start_ns[i], (long long)r->end_ns[i]);
            }
        }
    }
}

static void check_window(ooc_job *j)
{
    profile *w = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (ooc_job_take(j, &w, &err) != SV_OK)
        fail_msg("the window [2000, 2200): %s", err.msg);
    char got[512];
    overlapping(w, 2000, 2200, got, sizeof got);
    const char *want = "inner 2100 2600\nouter 2000 3000\n"; /* regions by name */
    if (strcmp(got, want) != 0)
        fail_msg("calls overlapping [2000, 2200):\n%swant:\n%s", got, want);
    profile_free(w);
}

/* The viewer's way: the loading child forked from the worker thread. */
static void test_window_isolated(void **state)
{
    (void)state;
    unsetenv("SCOPEVIEW_IN_PROCESS");
    ooc_file *f = open_small();
    ooc_job *j = ooc_job_start(f, 2000, 2200, false);
    assert_non_null(j);
    int64_t t0, t1;
    ooc_job_span(j, &t0, &t1);
    assert_int_equal(t0, 2000);
    assert_int_equal(t1, 2200);
    ooc_job_wait(j);
    assert_true(ooc_job_done(j));
    check_window(j);
    ooc_file_free(f);
}

static void test_hold(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    ooc_file *f = open_small();
    ooc_job *j = ooc_job_start(f, 2000, 2200, true);
    assert_non_null(j);
    sleep_ms(100); /* the read is done by now; held, it is not published */
    if (ooc_job_done(j))
        fail_msg("a held job published its window before ooc_job_release");
    ooc_job_release(j);
    for (int k = 0; k < 500 && !ooc_job_done(j); k++)
        sleep_ms(10);
    assert_true(ooc_job_done(j));
    check_window(j);
    ooc_file_free(f);
    unsetenv("SCOPEVIEW_IN_PROCESS");
}

/* Quitting while a job is held or running: cancel returns (a leak or a
 * double free shows under the sanitizers and valgrind). */
static void test_cancel(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    ooc_file *f = open_small();
    ooc_job_cancel(ooc_job_start(f, 2000, 2200, true));
    ooc_job_cancel(ooc_job_start(f, 0, 5000, false));
    ooc_job_cancel(NULL);
    ooc_file_free(f);
    unsetenv("SCOPEVIEW_IN_PROCESS");
}

/* The file removed after the open: the window fails, naming the file. */
static void test_file_gone(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    char src[1024], copy[] = "/tmp/sv-ooc-job-XXXXXX";
    sv_fixture_path(src, sizeof src, "small.h5");
    int fd = mkstemp(copy);
    assert_true(fd >= 0);
    FILE *in = fopen(src, "rb"), *out = fdopen(fd, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    ooc_file *f = open_file(copy);
    unlink(copy);
    ooc_job *j = ooc_job_start(f, 2000, 2200, false);
    assert_non_null(j);
    ooc_job_wait(j);
    profile *w = NULL;
    sv_error err;
    sv_error_clear(&err);
    sv_err rc = ooc_job_take(j, &w, &err);
    if (rc == SV_OK)
        fail_msg("a window of a removed file read without error");
    assert_null(w);
    if (!strstr(err.msg, copy))
        fail_msg("the error does not name the file %s: %s", copy, err.msg);
    ooc_file_free(f);
    unsetenv("SCOPEVIEW_IN_PROCESS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_isolated),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_file_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
