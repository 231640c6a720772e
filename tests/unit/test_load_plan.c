/* The MPI run's plan (load_rows.h load_plan): who computes each row's
 * statistics and who nests each rank.  Checked against what the plan
 * promises, not against its own output: every process gets the same plan
 * whatever order the rows come in; one rank is nested by process 0, with
 * its statistics (no process reads rows only for them); a rank nested elsewhere has its
 * statistics there too; with as many equal ranks as processes each process
 * nests one; one process does everything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load_rows.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The benchmark file's shape: one rank, five rows of 1 to 4M calls. */
static plan_row bench_rows[] = {
    {0, "main", 1, -1, -1},        {0, "main/step", 2000000, -1, -1},
    {0, "solve", 4000000, -1, -1}, {0, "solve/assemble", 2000000, -1, -1},
    {0, "write", 1999999, -1, -1},
};

static void test_one_process(void **state)
{
    (void)state;
    plan_row r[N(bench_rows)];
    memcpy(r, bench_rows, sizeof r);
    assert_true(load_plan(r, N(r), 1));
    for (size_t i = 0; i < N(r); i++) {
        assert_int_equal(r[i].stats, 0);
        assert_int_equal(r[i].nest, 0);
    }
}

/* Process 0 reads every row and nests the one rank (nesting needs all its
 * calls); no other process nests a rank, so none reads a row only for its
 * statistics: process 0 computes them all. */
static void test_one_rank(void **state)
{
    (void)state;
    for (int np = 2; np <= 4; np++) {
        plan_row r[N(bench_rows)];
        memcpy(r, bench_rows, sizeof r);
        assert_true(load_plan(r, N(r), np));
        for (size_t i = 0; i < N(r); i++) {
            assert_int_equal(r[i].nest, 0);
            if (r[i].stats != 0)
                fail_msg("np %d: row %s's statistics on process %d, which nests no rank", np,
                         r[i].name, r[i].stats);
        }
    }
}

/* Two ranks of unequal size on three processes: a process that nests a
 * rank may take statistics of process 0's rows (it reads rows anyway); the
 * one that nests none gets no row at all. */
static void test_idle_process(void **state)
{
    (void)state;
    plan_row r[] = {
        {0, "a", 4000000, -1, -1}, {0, "b", 3000000, -1, -1}, {1, "a", 100, -1, -1},
        {1, "b", 100, -1, -1},     {2, "a", 100, -1, -1},
    };
    assert_true(load_plan(r, N(r), 4));
    bool nests[4] = {false};
    for (size_t i = 0; i < N(r); i++)
        nests[r[i].nest] = true;
    for (size_t i = 0; i < N(r); i++)
        if (r[i].stats != 0 && !nests[r[i].stats])
            fail_msg("row %d/%s's statistics on process %d, which nests no rank", r[i].rank,
                     r[i].name, r[i].stats);
}

/* The same rows in another order (process 0 plans over its loaded
 * regions, the others over the file's index): the same plan. */
static void test_order_free(void **state)
{
    (void)state;
    plan_row a[12], b[12];
    static const char *const names[] = {"a", "b", "c"};
    for (size_t i = 0; i < N(a); i++)
        a[i] = (plan_row){(int)(i % 4), names[i % 3], (uint64_t)(1000 + 37 * (i % 5)), -1, -1};
    for (size_t i = 0; i < N(b); i++)
        b[i] = a[N(a) - 1 - i];
    /* Two rows of equal size, rank and a different name: ties by name. */
    for (int np = 1; np <= 5; np++) {
        assert_true(load_plan(a, N(a), np));
        assert_true(load_plan(b, N(b), np));
        for (size_t i = 0; i < N(a); i++) {
            assert_int_equal(a[i].stats, b[N(b) - 1 - i].stats);
            assert_int_equal(a[i].nest, b[N(b) - 1 - i].nest);
        }
    }
}

/* Four equal ranks on four processes: process 0 reads every row already,
 * so the ranks go to the others, each nesting at least one; a rank nested
 * by k > 0 has every row's statistics on k (k reads those rows), and every
 * row of a rank has the same nesting process. */
static void test_whole_ranks(void **state)
{
    (void)state;
    plan_row r[8];
    for (int i = 0; i < 8; i++)
        r[i] = (plan_row){i / 2, i % 2 ? "x" : "y", 500000, -1, -1};
    assert_true(load_plan(r, N(r), 4));
    int nests[4] = {0};
    for (size_t i = 0; i < N(r); i++) {
        assert_int_equal(r[i].nest, r[i ^ 1].nest);
        if (r[i].nest > 0)
            assert_int_equal(r[i].stats, r[i].nest);
        nests[r[i].nest]++;
    }
    for (int k = 1; k < 4; k++)
        assert_true(nests[k] >= 2); /* a rank: two rows */
}

/* Schema 1: process 0 reads every row; the others a hash's share. */
static void test_groups_owner(void **state)
{
    (void)state;
    load_part p0 = {0, 3, NULL}, p1 = {1, 3, NULL}, p2 = {2, 3, NULL};
    static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    int n1 = 0, n2 = 0;
    for (size_t i = 0; i < N(names); i++) {
        assert_true(load_part_owns(&p0, 0, names[i]));
        bool a = load_part_owns(&p1, 0, names[i]), b = load_part_owns(&p2, 0, names[i]);
        assert_true(a != b); /* exactly one of 1 and 2 */
        n1 += a;
        n2 += b;
    }
    assert_true(n1 > 0 && n2 > 0);
    assert_true(load_part_owns(NULL, 0, "a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_process),  cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_idle_process), cmocka_unit_test(test_order_free),
        cmocka_unit_test(test_whole_ranks),  cmocka_unit_test(test_groups_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
