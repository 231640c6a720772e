/* cli_parse's memory budget: resolved once, so every load takes one value that is never 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/args.h"

/* Half the RAM, at least 256 MiB, computed here from sysconf. */
static uint64_t default_budget(void)
{
    uint64_t half = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 2;
    return half < (256ull << 20) ? 256ull << 20 : half;
}

static uint64_t parsed_memory(int argc, char **argv)
{
    cli_options o;
    assert_int_equal(cli_parse(argc, argv, &o, stderr), 0);
    uint64_t m = o.memory;
    cli_options_free(&o);
    return m;
}

static void test_default_budget(void **state)
{
    (void)state;
    char *argv[] = {"scopeview", "--json", "run.h5", NULL};
    assert_int_equal(parsed_memory(3, argv), default_budget());
}

static void test_memory_given(void **state)
{
    (void)state;
    char *argv[] = {"scopeview", "--memory", "512M", "--json", "run.h5", NULL};
    assert_int_equal(parsed_memory(5, argv), 512ull << 20);
    char *compare[] = {"scopeview", "--diff", "--memory=3G", "a.h5", "b.h5", NULL};
    assert_int_equal(parsed_memory(5, compare), 3ull << 30);
}

static void test_zero_refused(void **state)
{
    (void)state;
    char *argv[] = {"scopeview", "--memory", "0", "run.h5", NULL};
    cli_options o;
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    assert_int_equal(cli_parse(4, argv, &o, devnull), 2);
    fclose(devnull);
    cli_options_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_budget),
        cmocka_unit_test(test_memory_given),
        cmocka_unit_test(test_zero_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
