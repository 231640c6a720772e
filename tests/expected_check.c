/* expected_check: see expected_check.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "expected_check.h"

void ec_close(const char *what, const region *r, double got, double want)
{
    double scale = fabs(want) > fabs(got) ? fabs(want) : fabs(got);
    if (fabs(got - want) > 1e-9 * scale + 1e-15)
        fail_msg("%s rank %d: %s = %.17g, expected %.17g", r->name, r->rank, what, got, want);
}

void ec_stat(const region *r, const jm_node *exp, region_stat_id id)
{
    const jm_node *v = jm_get(exp, region_stat_names[id]);
    if (!v)
        return;
    double got = 0, want = 0;
    bool known = region_stat(r, id, &got);
    if (jm_is_null(v)) {
        if (known)
            fail_msg("%s rank %d: %s should be unknown, got %.17g", r->name, r->rank,
                     region_stat_names[id], got);
        return;
    }
    assert_true(jm_number(v, &want));
    if (!known)
        fail_msg("%s rank %d: %s unknown, expected %.17g", r->name, r->rank, region_stat_names[id],
                 want);
    ec_close(region_stat_names[id], r, got, want);
}

void ec_threads(const region *r, const jm_node *exp)
{
    const jm_node *v = jm_get(exp, "threads");
    if (!v || jm_is_null(v))
        return;
    int64_t *rows;
    size_t n;
    assert_int_equal(region_threads(r, &rows, &n, NULL), SV_OK);
    if (n != v->count)
        fail_msg("%s rank %d: %zu threads, expected %zu", r->name, r->rank, n, v->count);
    for (size_t i = 0; i < n; i++) {
        double want;
        assert_true(jm_number(jm_at(v, i), &want));
        assert_int_equal(rows[i], (int64_t)want);
    }
    free(rows);
}

void ec_attrs(const region *r, const jm_node *exp)
{
    double x;
    const jm_node *v;
    if ((v = jm_get(exp, "num_calls")) && jm_number(v, &x))
        assert_int_equal(region_num_calls(r), (int64_t)x);
    if ((v = jm_get(exp, "has_event_data")))
        assert_int_equal(r->has_event_data, v->boolean);
    if ((v = jm_get(exp, "has_source")))
        assert_int_equal(region_has_source(r), v->boolean);
    if ((v = jm_get(exp, "source_file"))) {
        if (jm_is_null(v))
            assert_null(r->source_file);
        else
            assert_string_equal(r->source_file, jm_string(v));
    }
    if ((v = jm_get(exp, "source_lineno"))) {
        assert_int_equal(r->has_lineno, !jm_is_null(v));
        if (jm_number(v, &x))
            assert_int_equal(r->source_lineno, (int64_t)x);
    }
    if ((v = jm_get(exp, "tags"))) {
        assert_int_equal(r->ntags, v->count);
        for (size_t i = 0; i < v->count; i++)
            assert_string_equal(r->tags[i], jm_string(jm_at(v, i)));
    }
}
