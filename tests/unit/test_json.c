/* JSON profiles through the model: upstream's four files against their
 * expected statistics (../shared/data/upstream, skipped without it), and
 * small documents written here, plain and gzip'd, whose values are worked
 * out by hand: statistics, stored exclusive totals, tags, metadata,
 * aggregates, lane tables placed by index, line profiles, LIKWID records,
 * the memory budget and the faults' messages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "expected_check.h"
#include "json_min.h"
#include "load/loader.h"
#include "model/budget.h"
#include "model/region.h"
#include "testutil.h"

#define HEAD "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "

static char tmpdir[64];

static int setup(void **s)
{
    (void)s;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sv-test-json.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes text to tmpdir/name (gzip'd when the name ends in .gz). */
static const char *write_doc(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    size_t len = strlen(text), nl = strlen(name);
    if (nl > 3 && strcmp(name + nl - 3, ".gz") == 0) {
        gzFile gz = gzopen(path, "wb");
        assert_non_null(gz);
        assert_int_equal(gzwrite(gz, text, (unsigned)len), (int)len);
        assert_int_equal(gzclose(gz), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(text, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
    }
    return path;
}

static profile *load_doc(const char *name, const char *text)
{
    profile *p;
    sv_error err;
    const char *path = write_doc(name, text);
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", name, err.msg);
    return p;
}

static double stat_ns(const region *r, region_stat_id id)
{
    double ns;
    if (!region_stat_ns(r, id, &ns))
        fail_msg("%s: %s unknown", r->name, region_stat_names[id]);
    return ns;
}

static bool has_warning(const profile *p, const char *part)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strstr(p->warnings[i], part))
            return true;
    return false;
}

/* ------------------------------------------------------------ upstream's files */

static void check_upstream(const char *file, const char *base, size_t nranks, profile_layout layout)
{
    char path[512], js[512];
    sv_shared_path(path, sizeof path, "data/upstream/json");
    size_t o = strlen(path);
    snprintf(path + o, sizeof path - o, "/%s", file);
    sv_shared_path(js, sizeof js, "data/upstream/expected");
    o = strlen(js);
    snprintf(js + o, sizeof js - o, "/json-%s.json", base);
    struct stat st;
    if (stat(path, &st) != 0) {
        print_message("SKIP: shared data not found (%s)\n", path);
        skip();
    }
    profile *p;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", path, err.msg);
    size_t len;
    char *text = sv_slurp(js, &len), msg[128];
    assert_non_null(text);
    jm_node *exp = jm_parse(text, len, msg, sizeof msg);
    free(text);
    assert_non_null(exp);
    for (size_t i = 0; i < p->nwarnings; i++)
        print_message("warning: %s\n", p->warnings[i]);
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->nranks, nranks);
    assert_int_equal(p->schema, 3);
    assert_int_equal(p->layout, layout);
    assert_int_equal(p->nregions, exp->count);
    for (size_t i = 0; i < exp->count; i++) {
        const jm_node *e = jm_at(exp, i);
        double rank;
        assert_true(jm_number(jm_get(e, "rank"), &rank));
        const region *r = rank_region(profile_rank(p, (int)rank), jm_string(jm_get(e, "name")));
        if (!r)
            fail_msg("%s: region %s not loaded", base, jm_string(jm_get(e, "name")));
        for (int id = 0; id < RSTAT_COUNT; id++)
            ec_stat(r, e, (region_stat_id)id);
        ec_threads(r, e);
        ec_attrs(r, e);
        const jm_node *d = jm_get(e, "_debug"), *v;
        double x;
        if (d && (v = jm_get(d, "exclusive_stored_ns")) && jm_number(v, &x)) {
            assert_true(r->has_stored_exclusive);
            assert_int_equal(r->stored_exclusive_ns, (int64_t)x);
        }
        if (d && (v = jm_get(d, "nesting")) && jm_string(v))
            assert_int_equal(r->owner->explicit_ids, strcmp(jm_string(v), "explicit") == 0);
    }
    jm_free(exp);
    profile_free(p);
}

static void test_upstream_basic(void **s)
{
    (void)s;
    check_upstream("sp3-basic.json", "sp3-basic", 1, LAYOUT_COLUMNAR);
}

static void test_upstream_gpu(void **s)
{
    (void)s;
    check_upstream("sp3-gpu.json.gz", "sp3-gpu", 1, LAYOUT_COLUMNAR);
}

static void test_upstream_threads(void **s)
{
    (void)s;
    check_upstream("sp3-threads-async.json.gz", "sp3-threads-async", 1, LAYOUT_COLUMNAR);
}

static void test_upstream_aggregate(void **s)
{
    (void)s;
    check_upstream("sp3-aggregate.json", "sp3-aggregate", 2, LAYOUT_AGGREGATE);
}

/* ------------------------------------------------------------ by hand */

static const char doc_hand[] =
    HEAD "\"num_ranks\": 2, \"metadata\": {\"hostname\": \"node7\", \"mpi_size\": 2, "
         "\"ratio\": 0.5, \"quiet\": true, \"modules\": [\"gcc\", \"hdf5\"], \"none\": null}, "
         "\"regions\": [{\"name\": \"solve\", \"rank\": 1, \"source_file\": \"s.py\", "
         "\"source_lineno\": 7, \"tags\": [\"kernel\", \"golden\"], "
         "\"start_times_ns\": [10, 20, 40], \"end_times_ns\": [15, 33, 55], "
         "\"exclusive_total_ns\": 30}]}";

/* Durations 5, 13, 15: total 33, mean 11, population std sqrt(56/3 - 0)
 * = sqrt(((5-11)^2 + (13-11)^2 + (15-11)^2) / 3) = sqrt(56 / 3). */
static void check_hand(const profile *p)
{
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->nranks, 2); /* num_ranks: rank 0 recorded nothing */
    assert_int_equal(p->layout, LAYOUT_COLUMNAR);
    const region *r = rank_region(profile_rank(p, 1), "solve");
    assert_non_null(r);
    assert_int_equal(r->n, 3);
    assert_int_equal(r->start_ns[2], 40);
    assert_int_equal(r->end_ns[1], 33);
    assert_float_equal(stat_ns(r, RSTAT_TOTAL), 33.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_MIN), 5.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_MAX), 15.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_MEAN), 11.0, 1e-12);
    assert_float_equal(stat_ns(r, RSTAT_STD), sqrt(56.0 / 3.0), 1e-9);
    /* the writer's own exclusive total is kept beside the computed one, as
     * schema 3's exclusive_totals are */
    assert_true(r->has_stored_exclusive);
    assert_int_equal(r->stored_exclusive_ns, 30);
    assert_float_equal(stat_ns(r, RSTAT_EXCLUSIVE), 33.0, 0);
    assert_string_equal(r->source_file, "s.py");
    assert_int_equal(r->source_lineno, 7);
    assert_int_equal(r->ntags, 2);
    assert_string_equal(r->tags[1], "golden");
    assert_string_equal(profile_meta(p, "hostname"), "node7");
    assert_string_equal(profile_meta(p, "mpi_size"), "2");
    assert_string_equal(profile_meta(p, "ratio"), "0.5");
    assert_string_equal(profile_meta(p, "quiet"), "True");
    assert_string_equal(profile_meta(p, "modules"), "[gcc, hdf5]");
    assert_string_equal(profile_meta(p, "none"), "None");
}

static void test_hand_plain(void **s)
{
    (void)s;
    profile *p = load_doc("hand.json", doc_hand);
    check_hand(p);
    assert_int_equal(p->format, PFMT_JSON);
    profile_free(p);
}

static void test_hand_gzip(void **s)
{
    (void)s;
    profile *p = load_doc("hand.json.gz", doc_hand);
    check_hand(p);
    assert_int_equal(p->format, PFMT_JSON_GZIP);
    profile_free(p);
}

/* An aggregate: count 4, total 100, m2 500 -> std sqrt(500 / 4); a key
 * scopeview does not know is listed, never shown as a value. */
static void test_aggregate(void **s)
{
    (void)s;
    profile *p = load_doc("agg.json",
                          HEAD "\"event_data_available\": false, \"regions\": [{\"name\": \"a\", "
                               "\"rank\": 0, \"aggregate\": {\"count\": 4, \"total\": 100, "
                               "\"minimum\": 10, \"maximum\": 40, \"exclusive\": 60, \"m2\": 500, "
                               "\"median\": 22}, \"event_data_available\": false}]}");
    assert_int_equal(p->layout, LAYOUT_AGGREGATE);
    const region *r = p->regions[0];
    assert_false(r->has_event_data);
    assert_int_equal(region_num_calls(r), 4);
    assert_float_equal(stat_ns(r, RSTAT_TOTAL), 100.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_MEAN), 25.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_MIN), 10.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_EXCLUSIVE), 60.0, 0);
    assert_float_equal(stat_ns(r, RSTAT_STD), sqrt(125.0), 1e-12);
    double x;
    assert_false(region_stat_ns(r, RSTAT_P50, &x));
    assert_true(has_warning(p, "region a: key regions[0].aggregate: keys not shown: median"));
    profile_free(p);
}

/* Table rows are placed by their index, whatever their order in the text;
 * a thread id past the table drops the column. */
static void test_lane_tables(void **s)
{
    (void)s;
    profile *p = load_doc(
        "lanes.json",
        HEAD "\"regions\": [{\"name\": \"w\", \"rank\": 0, \"start_times_ns\": [1, 2], "
             "\"end_times_ns\": [5, 6], \"thread_ids\": [1, 0], \"task_ids\": [0, -1]}, "
             "{\"name\": \"x\", \"rank\": 0, \"start_times_ns\": [1], \"end_times_ns\": [2], "
             "\"thread_ids\": [2]}], "
             "\"threads\": {\"0\": [{\"index\": 1, \"name\": \"pool\", \"ident\": 11, "
             "\"native_id\": 21, \"daemon\": true, \"start_ns\": 0, \"end_ns\": 9, \"cpu_ns\": 3}, "
             "{\"index\": 0, \"name\": \"Main\", \"ident\": 10, \"native_id\": 20, \"daemon\": 0, "
             "\"start_ns\": 0, \"end_ns\": -1, \"cpu_ns\": 4}]}, "
             "\"tasks\": {\"0\": [{\"index\": 0, \"kind\": \"task\", \"name\": \"Task-1\", "
             "\"coro_name\": \"job\", \"thread_index\": 0, \"created_ns\": 1, \"done_ns\": -1, "
             "\"steps\": 2, \"running_ns\": 3, \"suspended_ns\": 4}]}}");
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    assert_int_equal(rk->threads.n, 2);
    assert_string_equal(rk->threads.name[0], "Main");
    assert_string_equal(rk->threads.name[1], "pool");
    assert_int_equal(rk->threads.ident[1], 11);
    assert_int_equal(rk->threads.daemon[1], 1);
    assert_int_equal(rk->threads.end_ns[0], -1);
    assert_int_equal(rk->threads.cpu_ns[0], 4);
    assert_true(rk->has_tasks);
    assert_string_equal(rk->tasks.coro_name[0], "job");
    assert_int_equal(rk->tasks.done_ns[0], -1);
    assert_int_equal(rk->tasks.suspended_ns[0], 4);
    const region *w = rank_region(rk, "w"), *x = rank_region(rk, "x");
    assert_int_equal(w->thread_ids[0], 1);
    assert_int_equal(w->task_ids[1], -1);
    assert_null(x->thread_ids);
    assert_true(has_warning(p, "thread 2 at call 0 is outside the threads of rank 0 (2 rows)"));
    profile_free(p);
}

static void test_lines_likwid(void **s)
{
    (void)s;
    profile *p =
        load_doc("aux.json.gz", HEAD
                 "\"regions\": [{\"name\": \"solve\", \"rank\": 0, \"start_times_ns\": [1], "
                 "\"end_times_ns\": [2]}], \"line_profile\": {\"0\": [{\"region\": \"solve\", "
                 "\"filename\": \"s.py\", \"function\": \"solve\", \"first_lineno\": 40, "
                 "\"unit\": 1e-6, \"line_numbers\": [41, 42], \"hits\": [3, 5], "
                 "\"times\": [1.5, 20]}]}, \"likwid\": {\"0\": {\"solve\": {\"group_name\": "
                 "\"FLOPS_DP\", \"event_names\": [\"INSTR\", \"CYCLES\"], \"events\": [[1, 2], "
                 "[3, 4.5]], \"call_counts\": [2, 3], \"metrics\": [[9]]}}}}");
    assert_int_equal(p->nwarnings, 0);
    rank_data *rk = profile_rank(p, 0);
    assert_int_equal(rk->nlines, 1);
    const line_profile *lp = &rk->lines[0];
    assert_string_equal(lp->function, "solve");
    assert_int_equal(lp->n, 2);
    assert_int_equal(lp->lineno[1], 42);
    assert_int_equal(lp->hits[1], 5);
    assert_float_equal(lp->times[0], 1.5, 0);
    assert_float_equal(lp->unit_s, 1e-6, 0);
    assert_null(lp->source);
    assert_int_equal(rk->nperf, 1);
    const perf_record *pr = &rk->perf[0];
    assert_string_equal(pr->kind, "likwid");
    assert_string_equal(pr->region, "solve");
    assert_int_equal(pr->n, 2);
    assert_string_equal(pr->names[1], "CYCLES");
    assert_float_equal(pr->values[0], 3.0, 0); /* 1 + 2 over the threads */
    assert_float_equal(pr->values[1], 7.5, 0);
    assert_int_equal(pr->calls, 5);
    profile_free(p);
}

/* A LIKWID tag is the region's name: kept whole, however long. */
static void test_likwid_long_tag(void **s)
{
    (void)s;
    profile *p = load_doc("tag.json", HEAD "\"regions\": [], \"num_ranks\": 1, \"likwid\": {\"0\": "
                                           "{\"module.submodule.a_function_with_a_long_name\": "
                                           "{\"event_names\": [\"X\"], \"events\": [7]}}}}");
    rank_data *rk = profile_rank(p, 0);
    assert_int_equal(rk->nperf, 1);
    assert_string_equal(rk->perf[0].region, "module.submodule.a_function_with_a_long_name");
    assert_float_equal(rk->perf[0].values[0], 7.0, 0);
    assert_int_equal(rk->perf[0].calls, -1);
    profile_free(p);
}

/* Ids all -1 (native data) are no call graph: the rank's nesting is inferred. */
static void test_fake_ids(void **s)
{
    (void)s;
    profile *p = load_doc("ids.json", HEAD "\"regions\": [{\"name\": \"a\", \"rank\": 0, "
                                           "\"start_times_ns\": [1, 10], \"end_times_ns\": [9, "
                                           "20], \"call_ids\": [-1, -1], \"parent_ids\": [-1, "
                                           "-1]}]}");
    assert_null(p->regions[0]->call_ids);
    assert_false(p->ranks[0].explicit_ids);
    profile_free(p);
}

/* 1000 calls (16 000 bytes of columns) within a 4 KiB budget: refused as the
 * HDF5 columns are, the budget marked exceeded. */
static void test_budget(void **s)
{
    (void)s;
    size_t cap = 40000, o = 0;
    char *doc = malloc(cap);
    assert_non_null(doc);
    o += (size_t)snprintf(doc, cap, HEAD "\"regions\": [{\"name\": \"a\", \"rank\": 0");
    for (int k = 0; k < 2; k++) {
        o += (size_t)snprintf(doc + o, cap - o, ", \"%s\": [",
                              k ? "end_times_ns" : "start_times_ns");
        for (int i = 0; i < 1000; i++)
            o += (size_t)snprintf(doc + o, cap - o, "%s%d", i ? ", " : "", i * 10 + k);
        o += (size_t)snprintf(doc + o, cap - o, "]");
    }
    snprintf(doc + o, cap - o, "}]}");
    const char *path = write_doc("budget.json", doc);
    free(doc);
    load_budget b = {.limit = 4096};
    load_options lo = {.budget = &b};
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(path, &lo, &p, &err), SV_ERR_NOMEM);
    assert_true(b.exceeded);
    assert_null(p);
    budget_free(&b);
    load_budget big = {.limit = 1 << 20};
    lo.budget = &big;
    assert_int_equal(profile_load(path, &lo, &p, &err), SV_OK);
    assert_int_equal(p->regions[0]->n, 1000);
    assert_true(big.used >= 16000);
    profile_free(p);
    budget_free(&big);
}

/* Each fault: SV_ERR_FORMAT (or DAMAGED) and a message naming the JSON path. */
static void test_faults(void **s)
{
    (void)s;
    static const struct {
        const char *doc, *msg;
    } cases[] = {
        {HEAD "\"regions\": [{\"name\": \"a\", \"rank\": 0, \"start_times_ns\": [1, ",
         "JSON regions[0].start_times_ns[1] (byte 117): malformed JSON: parse error: premature "
         "EOF"},
        {HEAD "\"regions\": [{\"name\": \"a\", \"rank\": 0, \"start_times_ns\": [1, \"2\"]",
         "JSON regions[0].start_times_ns[1] (byte 120): not an integer (a string)"},
        {HEAD
         "\"regions\": [{\"name\": \"a\", \"rank\": 0, \"end_times_ns\": [-9223372036854775809]",
         "JSON regions[0].end_times_ns[0] (byte 112): integer out of range (beyond 64 bits)"},
        {HEAD "\"num_ranks\": 70000}",
         "JSON num_ranks (byte 76): num_ranks 70000 is outside 0..65536"},
        {HEAD "\"regions\": [{\"name\": \"a\", \"name\": \"b\"}]}",
         "JSON regions[0].name (byte 95): repeated key"},
        {HEAD "\"regions\": {}}", "JSON regions (byte 70): not an array (an object)"},
        {"{\"format\": 3}", "JSON format (byte 12): not a string (an integer)"},
        {"{\"format\": \"scope-profiler-profile\", \"format_version\": 1.0}",
         "JSON format_version (byte 58): not an integer (a number)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = write_doc("fault.json", cases[i].doc);
        profile *p = NULL;
        sv_error err;
        assert_int_equal(profile_load(path, NULL, &p, &err), SV_ERR_FORMAT);
        assert_null(p);
        if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, "fault.json: "))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_basic),   cmocka_unit_test(test_upstream_gpu),
        cmocka_unit_test(test_upstream_threads), cmocka_unit_test(test_upstream_aggregate),
        cmocka_unit_test(test_hand_plain),       cmocka_unit_test(test_hand_gzip),
        cmocka_unit_test(test_aggregate),        cmocka_unit_test(test_lane_tables),
        cmocka_unit_test(test_lines_likwid),     cmocka_unit_test(test_likwid_long_tag),
        cmocka_unit_test(test_fake_ids),         cmocka_unit_test(test_budget),
        cmocka_unit_test(test_faults),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, setup, teardown));
}
