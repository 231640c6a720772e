/* The load's sinks (load_sink.h) on the demo profile and a schema-1
 * fixture: what each one's finish leaves (the model finished in full,
 * without the nesting, or not at all), the streamed statistics against
 * sums over the in-memory model's columns, and an MPI part's rows (read
 * whole, process 0 all of them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load_rows.h"
#include "load/loader.h"
#include "testutil.h"

static const char *demo_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    return buf;
}

static profile *load_with(const char *path, const load_sink *sink)
{
    load_options lo = {.sink = sink};
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, &lo, &p, &err) != SV_OK)
        fail_msg("%s", err.msg);
    return p;
}

/* The region's durations summed from its columns, as the statistics do
 * (no call in these profiles comes near saturation). */
static int64_t summed_ns(const region *r)
{
    int64_t t = 0;
    for (size_t i = 0; i < r->n; i++)
        t += r->end_ns[i] - r->start_ns[i];
    return t;
}

static const region *find_region(const profile *p, int rank, const char *name)
{
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (rk->rank != rank)
            continue;
        for (size_t j = 0; j < rk->nregions; j++)
            if (strcmp(rk->regions[j]->name, name) == 0)
                return rk->regions[j];
    }
    return NULL;
}

/* ALL: statistics and nesting; NO_NEST: the same statistics, no
 * exclusive time; NONE: no statistics. */
static void check_finish(const char *path)
{
    load_sink all = load_sink_model(LOAD_FINISH_ALL);
    load_sink nonest = load_sink_model(LOAD_FINISH_NO_NEST);
    load_sink none = load_sink_model(LOAD_FINISH_NONE);
    profile *a = load_with(path, &all), *b = load_with(path, &nonest), *c = load_with(path, &none);
    size_t nested = 0, seen = 0;
    for (size_t k = 0; k < a->nranks; k++)
        for (size_t j = 0; j < a->ranks[k].nregions; j++) {
            const region *ra = a->ranks[k].regions[j];
            const region *rb = find_region(b, a->ranks[k].rank, ra->name);
            const region *rc = find_region(c, a->ranks[k].rank, ra->name);
            assert_non_null(rb);
            assert_non_null(rc);
            if (ra->n == 0)
                continue;
            seen++;
            assert_int_equal(ra->st.num_calls, (int64_t)ra->n);
            assert_int_equal(ra->st.total_ns, summed_ns(ra));
            assert_int_equal(rb->st.num_calls, (int64_t)rb->n);
            assert_int_equal(rb->st.total_ns, summed_ns(rb));
            assert_int_equal(rb->st.exclusive_total_ns, 0);
            assert_int_equal(rc->n, ra->n);
            assert_int_equal(rc->st.num_calls, 0);
            nested += ra->st.exclusive_total_ns < ra->st.total_ns;
        }
    assert_true(seen > 0);
    assert_true(nested > 0); /* some region has children: the nesting ran */
    profile_free(a);
    profile_free(b);
    profile_free(c);
}

static void test_finish_demo(void **state)
{
    (void)state;
    char path[4096];
    check_finish(demo_path(path, sizeof path));
}

static void test_finish_schema1(void **state)
{
    (void)state;
    char path[4096];
    check_finish(sv_fixture_path(path, sizeof path, "legacy_small.h5"));
}

/* Forced streaming: no columns, the statistics the model's columns give. */
static void check_stream(const char *path)
{
    load_sink mem = load_sink_model(LOAD_FINISH_ALL);
    load_sink st = load_sink_stream(LOAD_STREAM_FORCE, LOAD_FINISH_ALL);
    profile *a = load_with(path, &mem), *b = load_with(path, &st);
    size_t seen = 0;
    for (size_t k = 0; k < a->nranks; k++)
        for (size_t j = 0; j < a->ranks[k].nregions; j++) {
            const region *ra = a->ranks[k].regions[j];
            const region *rb = find_region(b, a->ranks[k].rank, ra->name);
            assert_non_null(rb);
            if (ra->n == 0)
                continue;
            seen++;
            assert_true(rb->streamed);
            assert_int_equal(rb->n, 0);
            assert_int_equal(rb->st.num_calls, (int64_t)ra->n);
            assert_int_equal(rb->st.total_ns, summed_ns(ra));
        }
    assert_true(seen > 0);
    profile_free(a);
    profile_free(b);
}

static void test_stream_demo(void **state)
{
    (void)state;
    char path[4096];
    check_stream(demo_path(path, sizeof path));
}

static void test_stream_schema1(void **state)
{
    (void)state;
    char path[4096];
    check_stream(sv_fixture_path(path, sizeof path, "legacy_small.h5"));
}

/* np parts: process 0 reads every row (it prints), the others the rows
 * of their share (load_rows.h), each row whole: some row goes to another
 * process than 0, and some process reads fewer rows than all. */
static void test_part_rows(void **state)
{
    (void)state;
    char path[4096];
    demo_path(path, sizeof path);
    load_sink mem = load_sink_model(LOAD_FINISH_ALL);
    profile *a = load_with(path, &mem);
    enum { NP = 3 };
    profile *part[NP];
    load_nest_list nests[NP];
    for (int k = 0; k < NP; k++) {
        memset(&nests[k], 0, sizeof nests[k]);
        load_part pt = {k, NP, &nests[k]};
        load_sink s = load_sink_part(&pt);
        part[k] = load_with(path, &s);
    }
    size_t seen = 0, shared = 0, skipped = 0;
    for (size_t r = 0; r < a->nranks; r++)
        for (size_t j = 0; j < a->ranks[r].nregions; j++) {
            const region *ra = a->ranks[r].regions[j];
            if (ra->n == 0)
                continue;
            seen++;
            const region *r0 = find_region(part[0], a->ranks[r].rank, ra->name);
            assert_non_null(r0);
            assert_int_equal(r0->n, ra->n);
            for (int k = 1; k < NP; k++) {
                const region *rp = find_region(part[k], a->ranks[r].rank, ra->name);
                if (!rp || rp->n == 0) {
                    skipped++;
                    continue;
                }
                shared++;
                assert_int_equal(rp->n, ra->n);
                assert_int_equal(rp->st.total_ns, summed_ns(ra));
            }
        }
    assert_true(seen > 1);
    assert_true(shared > 0);
    assert_true(skipped > 0);
    for (int k = 0; k < NP; k++) {
        profile_free(part[k]);
        load_nest_list_free(&nests[k]);
    }
    profile_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_demo), cmocka_unit_test(test_finish_schema1),
        cmocka_unit_test(test_stream_demo), cmocka_unit_test(test_stream_schema1),
        cmocka_unit_test(test_part_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
