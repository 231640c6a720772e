/* test_hash: sv_itab (util/hash.h), the table of record indices: every
 * record found again after the growths, misses missed, a hash that sends
 * every key to one slot (probing alone), a cleared table, the first size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/hash.h"

typedef struct recs {
    int64_t *key;
    bool flat; /* every key hashed to 0 */
} recs;

static uint64_t key_hash(const recs *r, int64_t k)
{
    return r->flat ? 0 : sv_hash_u64((uint64_t)k);
}

static bool rec_eq(const void *ctx, uint32_t i, const void *key)
{
    return ((const recs *)ctx)->key[i] == *(const int64_t *)key;
}

static uint64_t rec_hash(const void *ctx, uint32_t i)
{
    const recs *r = ctx;
    return key_hash(r, r->key[i]);
}

static void fill_and_find(bool flat, uint32_t n)
{
    recs r = {malloc(n * sizeof *r.key), flat};
    assert_non_null(r.key);
    sv_itab t = {0};
    for (uint32_t i = 0; i < n; i++) {
        int64_t k = (int64_t)i * 7919 - 100000; /* distinct, negative ones too */
        assert_int_equal(sv_itab_find(&t, key_hash(&r, k), rec_eq, &r, &k), UINT32_MAX);
        r.key[i] = k;
        assert_true(sv_itab_add(&t, key_hash(&r, k), i, 4, rec_hash, &r));
    }
    assert_int_equal(t.n, n);
    assert_true(2 * t.n <= t.cap);
    assert_int_equal(t.cap & (t.cap - 1), 0);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(sv_itab_find(&t, key_hash(&r, r.key[i]), rec_eq, &r, &r.key[i]), i);
    int64_t miss = 3; /* not of the form i * 7919 - 100000 */
    assert_int_equal(sv_itab_find(&t, key_hash(&r, miss), rec_eq, &r, &miss), UINT32_MAX);
    size_t cap = t.cap;
    sv_itab_clear(&t);
    assert_int_equal(t.n, 0);
    assert_int_equal(t.cap, cap);
    assert_int_equal(sv_itab_find(&t, key_hash(&r, r.key[0]), rec_eq, &r, &r.key[0]), UINT32_MAX);
    sv_itab_free(&t);
    assert_null(t.slot);
    free(r.key);
}

static void test_many(void **state)
{
    (void)state;
    fill_and_find(false, 100000);
}

static void test_one_slot(void **state)
{
    (void)state;
    fill_and_find(true, 500);
}

static void test_empty(void **state)
{
    (void)state;
    sv_itab t = {0};
    recs r = {NULL, false};
    int64_t k = 1;
    assert_int_equal(sv_itab_find(&t, 1, rec_eq, &r, &k), UINT32_MAX);
    sv_itab_clear(&t);
    sv_itab_free(&t);
}

static void test_first_size(void **state)
{
    (void)state;
    recs r = {(int64_t[]){5}, false};
    sv_itab t = {0};
    assert_true(sv_itab_add(&t, rec_hash(&r, 0), 0, 1000, rec_hash, &r));
    assert_int_equal(t.cap, 1024); /* the first size rounded up to a power of two */
    sv_itab_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_one_slot),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_first_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
