/* strip.c: a finished profile without its calls gives the batch outputs (--json, --csv,
 * --summary) byte for byte what it gave with them, and holds no call afterwards: on fixtures
 * with every optional column (threads, tasks, ids, GPU, await, per-call metadata), schema 1,
 * 2 and 3, summary-only regions and none at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/outputs.h"
#include "load/loader.h"
#include "model/region.h"
#include "model/strip.h"

#define FIXTURES SV_TOP_BUILDDIR "/tests/fixtures/"

/* --json (0), --csv (1) or --summary (2) of p. */
static char *output(const profile *p, int mode)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    sv_error err;
    sv_err e = mode == 0   ? out_json(p, NULL, fp, &err)
               : mode == 1 ? out_csv(p, NULL, fp, &err)
                           : out_summary(p, NULL, fp, &err);
    assert_int_equal(e, SV_OK);
    fclose(fp);
    return buf;
}

static void check_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, FIXTURES "%s", name);
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("%s: %s", name, err.msg);
    char *before[3];
    for (int k = 0; k < 3; k++)
        before[k] = output(p, k);
    profile_strip_calls(p);
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (r->has_event_data && (r->n || r->start_ns || r->end_ns || r->thread_ids || r->gpu_ns ||
                                  r->await_ns || r->call_ids || r->event_meta))
            fail_msg("%s: region %s still holds calls after the strip", name, r->name);
    }
    for (int k = 0; k < 3; k++) {
        char *after = output(p, k);
        if (strcmp(before[k], after) != 0)
            fail_msg("%s: output %d differs after the strip:\n%s\n---\n%s", name, k, before[k],
                     after);
        free(after);
        free(before[k]);
    }
    profile_free(p);
}

static void test_fixtures(void **state)
{
    (void)state;
    const char *names[] = {
        "small.h5",        "col3_full.h5",      "col2_full.h5",       "col3_mixed_ids.h5",
        "col3_overlap.h5", "legacy_small.h5",   "legacy_threads2.h5", "legacy_empty_region.h5",
        "nested_names.h5", "col3_aggregate.h5", "int_types.h5"};
    size_t done = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES "%s", names[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fclose(f);
        check_file(names[i]);
        done++;
    }
    assert_true(done >= 10); /* svgen fixtures wrote them */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fixtures)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
