/* Filters: re.match-style anchoring, exclude, rank lists, region order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/filter.h"
#include "memprof.h"
#include "model/select.h"

static void test_anchored_at_start(void **state)
{
    (void)state;
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_include(&f, "sol", NULL), SV_OK);
    assert_true(filter_match_name(&f, "solve"));
    assert_false(filter_match_name(&f, "resolve")); /* re.match, not re.search */
    assert_int_equal(filter_add_include(&f, "io/.*", NULL), SV_OK);
    assert_true(filter_match_name(&f, "io/checkpoint"));
    assert_int_equal(filter_add_exclude(&f, "io/check", NULL), SV_OK);
    assert_false(filter_match_name(&f, "io/checkpoint"));
    assert_true(filter_match_name(&f, "io/write"));
    filter_free(&f);
}

static void test_alternation_is_anchored_as_a_whole(void **state)
{
    (void)state;
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_include(&f, "a|b", NULL), SV_OK);
    assert_true(filter_match_name(&f, "bx"));
    assert_false(filter_match_name(&f, "xb"));
    filter_free(&f);
}

static void test_bad_regex(void **state)
{
    (void)state;
    region_filter f;
    filter_init(&f);
    sv_error err;
    assert_int_equal(filter_add_include(&f, "(", &err), SV_ERR_REGEX);
    assert_non_null(strstr(err.msg, "'('"));
    filter_free(&f);
}

static void test_rank_list(void **state)
{
    (void)state;
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_set_ranks(&f, "5,0-3,2", NULL), SV_OK);
    assert_int_equal(f.nranks, 5);
    int want[] = {0, 1, 2, 3, 5};
    for (int i = 0; i < 5; i++)
        assert_int_equal(f.ranks[i], want[i]);
    assert_true(filter_match_rank(&f, 5));
    assert_false(filter_match_rank(&f, 4));
    const char *bad[] = {"", "a", "1-", "3-1", "1,,2", "-1", "1,", "99999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(filter_set_ranks(&f, bad[i], NULL), SV_ERR_USAGE);
    filter_free(&f);
}

static void test_select_order(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    int64_t s1[] = {30}, e1[] = {40}, s2[] = {10}, e2[] = {20};
    rank_data *r0 = profile_add_rank(p, 0);
    mp_region(r0, "late", 1, s1, e1);
    mp_region(r0, "early", 1, s2, e2);
    region *so = rank_add_region(r0, "aaa_summary_only");
    so->has_stored_summary = true;
    mp_region(profile_add_rank(p, 1), "late", 1, s2, e2);
    mp_finish(p);
    region **v;
    size_t n;
    assert_int_equal(profile_select_regions(p, NULL, &v, &n, NULL), SV_OK);
    assert_int_equal(n, 4);
    assert_string_equal(v[0]->name, "early");
    assert_string_equal(v[1]->name, "late");
    assert_int_equal(v[1]->rank, 1); /* same start 10: name, then rank */
    assert_string_equal(v[2]->name, "late");
    assert_string_equal(v[3]->name, "aaa_summary_only"); /* no events: last */
    free(v);
    region_filter f;
    filter_init(&f);
    filter_set_ranks(&f, "1", NULL);
    assert_int_equal(profile_select_regions(p, &f, &v, &n, NULL), SV_OK);
    assert_int_equal(n, 1);
    free(v);
    filter_free(&f);
    assert_int_equal(profile_region_across_ranks(p, "late", &v, &n, NULL), SV_OK);
    assert_int_equal(n, 2);
    assert_int_equal(v[0]->rank, 0);
    free(v);
    assert_int_equal(p->min_start_ns, 10);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anchored_at_start),
        cmocka_unit_test(test_alternation_is_anchored_as_a_whole),
        cmocka_unit_test(test_bad_regex),
        cmocka_unit_test(test_rank_list),
        cmocka_unit_test(test_select_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
