/* Batch outputs: the exact shape of --json, --csv, --summary and --events on small.h5, whose
 * values are worked out by hand in tests/gen/FIXTURES.md (times in ns, zero at 1000 ns):
 *   outer   durations [500, 1000]; exclusive [400, 200] → 600; p95 = 500 + 0.95·500 = 975
 *   inner   durations [100, 500, 400]; p50 400; gpu [50, -, 70] → total 120, mean 60
 *   io/write one zero-length call at 1300; await total 0; thread 1
 *   reduce  summary-only: num_calls 4, total 4000, mean 1000, min 500, max 1500
 * plus the hostile-strings fixture (no control byte may reach any output) and one with no
 * ranks at all. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/outputs.h"
#include "model/filter.h"
#include "json_min.h"
#include "load/loader.h"
#include "model/region.h"
#include "util/text.h"

#define FIXTURES SV_TOP_BUILDDIR "/tests/fixtures/"
#define HOSTILE_NAME "evil\x1b[31mred\x07"

/* The region keys of the issue, typed in again here so a change in outputs.c shows. */
static const char *const region_keys[] = {
    "name",
    "rank",
    "num_calls",
    "has_event_data",
    "total_duration",
    "average_duration",
    "min_duration",
    "max_duration",
    "std_duration",
    "first_duration",
    "last_duration",
    "p50_duration",
    "p95_duration",
    "p99_duration",
    "first_start_time",
    "last_end_time",
    "inclusive_duration",
    "total_exclusive_duration",
    "gpu_total_duration",
    "gpu_average_duration",
    "total_await_duration",
    "threads",
    "tags",
    "source_file",
    "source_lineno",
    "has_source",
};
#define NKEYS (sizeof region_keys / sizeof region_keys[0])

static const char *const event_keys[] = {
    "rank",   "call_index",  "start", "end",       "duration", "exclusive", "await",    "gpu",
    "thread", "thread_name", "task",  "task_name", "call_id",  "parent_id", "metadata",
};

/* ------------------------------------------------------------------ helpers */

typedef struct captured {
    char *text;
    size_t len;
    sv_err rc;
    sv_error err;
} captured;

typedef enum which { W_SUMMARY, W_JSON, W_CSV, W_EVENTS } which;

static profile *load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", FIXTURES, name);
    profile *p = NULL;
    sv_error err;
    sv_err rc = profile_load(path, NULL, &p, &err);
    if (rc != SV_OK)
        fail_msg("cannot load %s: %s (run 'make check' so svgen writes the fixtures)", path,
                 err.msg);
    return p;
}

static captured run(profile *p, const region_filter *f, which w, const events_request *req)
{
    captured c = {NULL, 0, SV_OK, {SV_OK, ""}};
    FILE *fp = open_memstream(&c.text, &c.len);
    assert_non_null(fp);
    if (w == W_SUMMARY)
        c.rc = out_summary(p, f, fp, &c.err);
    else if (w == W_JSON)
        c.rc = out_json(p, f, fp, &c.err);
    else if (w == W_CSV)
        c.rc = out_csv(p, f, fp, &c.err);
    else
        c.rc = out_events(p, f, req, fp, NULL, &c.err);
    assert_int_equal(fclose(fp), 0);
    return c;
}

static captured run_all(profile *p, which w)
{
    region_filter f;
    filter_init(&f);
    captured c = run(p, &f, w, NULL);
    filter_free(&f);
    assert_int_equal(c.rc, SV_OK);
    return c;
}

static captured run_events(profile *p, const char *name, int rank, events_format fmt)
{
    region_filter f;
    filter_init(&f);
    events_request req = {name, rank >= 0, rank, fmt, false};
    captured c = run(p, &f, W_EVENTS, &req);
    filter_free(&f);
    return c;
}

static jm_node *parse_json(const captured *c)
{
    char msg[128];
    jm_node *root = jm_parse(c->text, c->len, msg, sizeof msg);
    if (!root)
        fail_msg("invalid JSON (%s):\n%s", msg, c->text);
    return root;
}

static double num(const jm_node *n)
{
    double v = NAN;
    if (!jm_number(n, &v))
        fail_msg("expected a number");
    return v;
}

/* Hand values are decimal: compare to a relative 1e-12. */
static void check_seconds(const jm_node *obj, const char *key, double expected)
{
    const jm_node *n = jm_get(obj, key);
    if (!n || n->type != JM_NUMBER)
        fail_msg("%s: expected a number", key);
    double got = n->number;
    if (fabs(got - expected) > 1e-12 * fabs(expected) + 1e-30)
        fail_msg("%s: got %.17g, expected %.17g", key, got, expected);
}

static void check_null(const jm_node *obj, const char *key)
{
    if (!jm_is_null(jm_get(obj, key)))
        fail_msg("%s: expected null", key);
}

static void check_str(const jm_node *obj, const char *key, const char *expected)
{
    const char *s = jm_string(jm_get(obj, key));
    if (!s || strcmp(s, expected) != 0)
        fail_msg("%s: got \"%s\", expected \"%s\"", key, s ? s : "(not a string)", expected);
}

static void check_bool(const jm_node *obj, const char *key, bool expected)
{
    const jm_node *n = jm_get(obj, key);
    if (!n || n->type != JM_BOOL || n->boolean != expected)
        fail_msg("%s: expected %s", key, expected ? "true" : "false");
}

static void check_ints(const jm_node *obj, const char *key, const double *v, size_t n)
{
    const jm_node *a = jm_get(obj, key);
    assert_non_null(a);
    assert_int_equal(a->type, JM_ARRAY);
    assert_int_equal(a->count, n);
    for (size_t i = 0; i < n; i++)
        assert_true(num(jm_at(a, i)) == v[i]);
}

/* No raw control byte: only \n below 0x20, no DEL, no C1 (U+0080..U+009F as C2 80..C2 9F),
 * and valid UTF-8 throughout. */
static void assert_clean_output(const char *what, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            fail_msg("%s: control byte 0x%02x at offset %zu", what, c, i);
        if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
            (unsigned char)s[i + 1] <= 0x9f)
            fail_msg("%s: C1 control at offset %zu", what, i);
        if (c >= 0x80) {
            uint32_t cp;
            size_t k = utf8_decode(s + i, len - i, &cp);
            if (k == 0)
                fail_msg("%s: invalid UTF-8 at offset %zu", what, i);
            i += k - 1;
        }
    }
}

/* Splits one CSV record (RFC 4180) into fields; returns the count.  Fields are malloc'ed. */
static size_t csv_split(const char *line, char **fields, size_t max)
{
    size_t n = 0;
    const char *p = line;
    for (;;) {
        char *f = calloc(strlen(line) + 1, 1);
        size_t k = 0;
        assert_non_null(f);
        if (*p == '"') {
            for (p++; *p; p++) {
                if (*p == '"' && p[1] == '"')
                    f[k++] = *p++;
                else if (*p == '"')
                    break;
                else
                    f[k++] = *p;
            }
            assert_true(*p == '"');
            p++;
        } else {
            while (*p && *p != ',' && *p != '\n')
                f[k++] = *p++;
        }
        assert_true(n < max);
        fields[n++] = f;
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

static void free_fields(char **fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(fields[i]);
}

/* Line i (0-based) of text, malloc'ed, without its newline. */
static char *line_at(const char *text, size_t i)
{
    const char *s = text;
    while (i-- > 0) {
        s = strchr(s, '\n');
        assert_non_null(s);
        s++;
    }
    size_t n = strcspn(s, "\n");
    char *out = strndup(s, n);
    assert_non_null(out);
    return out;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *s = text; *s; s++)
        n += *s == '\n';
    return n;
}

/* ------------------------------------------------------------------ the command line */

static int parse(cli_options *o, const char *const *args, size_t n, char *err, size_t errlen)
{
    char *argv[16];
    assert_true(n < 16);
    argv[0] = "scopeview";
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    argv[n + 1] = NULL;
    FILE *fp = fmemopen(err, errlen, "w");
    assert_non_null(fp);
    int rc = cli_parse((int)n + 1, argv, o, fp);
    fclose(fp);
    return rc;
}

static void test_cli_parse(void **state)
{
    (void)state;
    cli_options o;
    char err[256] = "";
    const char *a1[] = {"--json", "--events", "inner", "f.h5", "-i", "a", "--include=b", "-x", "c"};
    assert_int_equal(parse(&o, a1, 9, err, sizeof err), 0);
    assert_int_equal(o.mode, CLI_EVENTS);
    assert_int_equal(o.events_format, EVENTS_JSON);
    assert_string_equal(o.events_region, "inner");
    assert_false(o.has_events_rank);
    assert_string_equal(o.file, "f.h5");
    assert_int_equal(o.nincludes, 2);
    assert_string_equal(o.includes[1], "b");
    assert_int_equal(o.nexcludes, 1);
    cli_options_free(&o);

    const char *a2[] = {"f.h5", "--events", "x", "--csv", "--rank", "3", "--ranks", "0-3,5"};
    assert_int_equal(parse(&o, a2, 8, err, sizeof err), 0);
    assert_int_equal(o.events_format, EVENTS_CSV);
    assert_true(o.has_events_rank);
    assert_int_equal(o.events_rank, 3);
    assert_string_equal(o.ranks, "0-3,5");
    cli_options_free(&o);

    const char *a3[] = {"--batch", "--size", "120x40", "--keys", "jjq", "--ascii", "--mono"};
    assert_int_equal(parse(&o, a3, 7, err, sizeof err), 0);
    assert_int_equal(o.mode, CLI_INTERACTIVE);
    assert_null(o.file);
    assert_true(o.headless && o.ascii && o.mono);
    assert_int_equal(o.cols, 120);
    assert_int_equal(o.rows, 40);
    assert_string_equal(o.keys, "jjq");
    cli_options_free(&o);

    /* Several FILEs: one C-API rank set. */
    const char *a5[] = {"--json", "r_rank00000.h5", "r_rank00001.h5"};
    assert_int_equal(parse(&o, a5, 3, err, sizeof err), 0);
    assert_int_equal(o.nfiles, 2);
    assert_string_equal(o.file, "r_rank00000.h5");
    assert_string_equal(o.files[1], "r_rank00001.h5");
    cli_options_free(&o);

    const char *a4[] = {"--summary", "--version"};
    assert_int_equal(parse(&o, a4, 2, err, sizeof err), 0);
    assert_int_equal(o.mode, CLI_VERSION);
    cli_options_free(&o);

    const char *bad[][2] = {{"--size", "10001x5"},  {"--size", "80x24x"}, {"--rank", "1"},
                            {"--csv", "--summary"}, {"--nope", "f"},      {"--size", "0x5"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(err, 0, sizeof err);
        assert_int_equal(parse(&o, bad[i], 2, err, sizeof err), 2);
        assert_non_null(strstr(err, "(try 'scopeview --help')\n"));
        assert_int_equal(strchr(err, '\n') - err + 1, strlen(err)); /* one line */
        cli_options_free(&o);
    }
}

/* ------------------------------------------------------------------ json_min itself */

static void test_json_min_strict(void **state)
{
    (void)state;
    const char *bad[] = {"",           "[1,]",      "{\"a\":1,}", "01",      "\"a\tb\"",    "[1] x",
                         "1.",         "tru",       "{a:1}",      "\"\\x\"", "\"\\ud800\"", "-",
                         "[\"\xff\"]", "{\"a\" 1}", "nul"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jm_node *n = jm_parse(bad[i], strlen(bad[i]), NULL, 0);
        if (n)
            fail_msg("accepted invalid JSON: %s", bad[i]);
    }
    const char *good =
        " {\"a\": [1, -2.5e-3, true, false, null], \"s\": \"q\\\"\\u00e9\\ud83d\\ude00\","
        " \"z\": \"\\u0000x\", \"a\": 2} ";
    jm_node *r = jm_parse(good, strlen(good), NULL, 0);
    assert_non_null(r);
    assert_int_equal(r->count, 4);
    assert_true(num(jm_at(jm_get(r, "a"), 1)) == -2.5e-3);
    assert_true(jm_get(r, "a")->items[2]->boolean);
    assert_true(jm_is_null(jm_at(jm_get(r, "a"), 4)));
    assert_string_equal(jm_string(jm_get(r, "s")), "q\"\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(jm_get(r, "z")->string_len, 2);
    assert_null(jm_get(r, "nope"));
    jm_free(r);
}

/* ------------------------------------------------------------------ --json */

static void check_json_outer(const jm_node *o)
{
    assert_int_equal(num(jm_get(o, "rank")), 0);
    assert_int_equal(num(jm_get(o, "num_calls")), 2);
    check_bool(o, "has_event_data", true);
    check_seconds(o, "total_duration", 1.5e-6);
    check_seconds(o, "average_duration", 7.5e-7);
    check_seconds(o, "min_duration", 5e-7);
    check_seconds(o, "max_duration", 1e-6);
    check_seconds(o, "std_duration", 2.5e-7); /* |500 - 750| = |1000 - 750| */
    check_seconds(o, "first_duration", 5e-7);
    check_seconds(o, "last_duration", 1e-6);
    check_seconds(o, "p50_duration", 7.5e-7);
    check_seconds(o, "p95_duration", 9.75e-7);
    check_seconds(o, "p99_duration", 9.95e-7);
    check_seconds(o, "first_start_time", 1e-6); /* raw timestamps, as Python's */
    check_seconds(o, "last_end_time", 3e-6);
    check_seconds(o, "inclusive_duration", 1.5e-6);
    check_seconds(o, "total_exclusive_duration", 6e-7);
    check_null(o, "gpu_total_duration");
    check_null(o, "gpu_average_duration");
    check_null(o, "total_await_duration");
    check_ints(o, "threads", (double[]){0}, 1);
    const jm_node *tags = jm_get(o, "tags");
    assert_int_equal(tags->count, 2);
    assert_string_equal(jm_string(jm_at(tags, 0)), "demo");
    assert_string_equal(jm_string(jm_at(tags, 1)), "io");
    check_str(o, "source_file", "app.py");
    assert_int_equal(num(jm_get(o, "source_lineno")), 10);
    check_bool(o, "has_source", true);
}

static void check_json_inner(const jm_node *o)
{
    assert_int_equal(num(jm_get(o, "num_calls")), 3);
    check_seconds(o, "total_duration", 1e-6);
    check_seconds(o, "average_duration", 1e-6 / 3);
    check_seconds(o, "min_duration", 1e-7);
    check_seconds(o, "max_duration", 5e-7);
    /* mean 1000/3; squares of deviations: (700/3)^2 + (500/3)^2 + (200/3)^2 = 780000/9 */
    check_seconds(o, "std_duration", sqrt(780000.0 / 9 / 3) * 1e-9);
    check_seconds(o, "first_duration", 1e-7);
    check_seconds(o, "last_duration", 4e-7);
    check_seconds(o, "p50_duration", 4e-7);
    check_seconds(o, "p95_duration", 4.9e-7); /* sorted 100 400 500: idx 1.9 */
    check_seconds(o, "p99_duration", 4.98e-7);
    check_seconds(o, "first_start_time", 1.1e-6);
    check_seconds(o, "last_end_time", 2.9e-6);
    check_seconds(o, "total_exclusive_duration", 1e-6);
    check_seconds(o, "gpu_total_duration", 1.2e-7);
    check_seconds(o, "gpu_average_duration", 6e-8);
    check_null(o, "total_await_duration");
    assert_int_equal(jm_get(o, "tags")->count, 0);
    check_null(o, "source_file");
    check_null(o, "source_lineno");
    check_bool(o, "has_source", false);
}

static void check_json_write_and_reduce(const jm_node *w, const jm_node *r)
{
    assert_int_equal(num(jm_get(w, "num_calls")), 1);
    assert_true(num(jm_get(w, "total_duration")) == 0);
    assert_true(num(jm_get(w, "total_exclusive_duration")) == 0);
    assert_true(num(jm_get(w, "total_await_duration")) == 0); /* tracked, and zero */
    check_ints(w, "threads", (double[]){1}, 1);

    check_bool(r, "has_event_data", false);
    assert_int_equal(num(jm_get(r, "num_calls")), 4);
    check_seconds(r, "total_duration", 4e-6);
    check_seconds(r, "average_duration", 1e-6);
    check_seconds(r, "min_duration", 5e-7);
    check_seconds(r, "max_duration", 1.5e-6);
    const char *unknown[] = {"std_duration",
                             "first_duration",
                             "last_duration",
                             "p50_duration",
                             "p95_duration",
                             "p99_duration",
                             "first_start_time",
                             "last_end_time",
                             "total_exclusive_duration",
                             "gpu_total_duration",
                             "gpu_average_duration",
                             "total_await_duration",
                             "threads",
                             "source_file",
                             "source_lineno"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        check_null(r, unknown[i]);
    assert_int_equal(jm_get(r, "tags")->count, 1);
    assert_string_equal(jm_string(jm_at(jm_get(r, "tags"), 0)), "mpi");
}

static void test_json_small(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_all(p, W_JSON);
    jm_node *root = parse_json(&c);
    const char *top[] = {
        "file",  "files",       "file_formats",       "schema", "layout", "metadata", "num_ranks",
        "ranks", "lane_tables", "minimum_start_time", "regions"};
    assert_int_equal(root->count, 11);
    for (size_t i = 0; i < 11; i++)
        assert_string_equal(root->items[i]->key, top[i]);
    assert_int_equal(num(jm_get(root, "schema")), 1);
    assert_string_equal(jm_string(jm_get(root, "layout")), "groups");
    assert_int_equal(jm_get(root, "files")->count, 1);
    assert_string_equal(jm_string(jm_at(jm_get(root, "file_formats"), 0)),
                        "HDF5, schema 1, groups");
    assert_non_null(strstr(jm_string(jm_get(root, "file")), "small.h5"));
    const jm_node *meta = jm_get(root, "metadata");
    check_str(meta, "hostname", "testhost");
    check_str(meta, "python_version", "3.11.7");
    check_str(meta, "mpi_size", "1");
    assert_int_equal(num(jm_get(root, "num_ranks")), 1);
    check_ints(root, "ranks", (double[]){0}, 1);
    check_seconds(root, "minimum_start_time", 1e-6);

    const jm_node *regions = jm_get(root, "regions");
    assert_int_equal(regions->count, 4);
    /* Order of first start: outer 1000, inner 1100, io/write 1300, then summary-only. */
    const char *order[] = {"outer", "inner", "io/write", "reduce"};
    for (size_t i = 0; i < 4; i++) {
        const jm_node *r = jm_at(regions, i);
        check_str(r, "name", order[i]);
        assert_int_equal(r->count, NKEYS);
        for (size_t k = 0; k < NKEYS; k++)
            assert_string_equal(r->items[k]->key, region_keys[k]);
    }
    check_json_outer(jm_at(regions, 0));
    check_json_inner(jm_at(regions, 1));
    check_json_write_and_reduce(jm_at(regions, 2), jm_at(regions, 3));
    jm_free(root);
    free(c.text);
    profile_free(p);
}

/* Every number printed reads back as exactly the model's double. */
static void test_json_round_trip(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_all(p, W_JSON);
    jm_node *root = parse_json(&c);
    const jm_node *regions = jm_get(root, "regions");
    static const struct {
        const char *key;
        region_stat_id id;
    } stats[] = {{"total_duration", RSTAT_TOTAL},
                 {"average_duration", RSTAT_MEAN},
                 {"std_duration", RSTAT_STD},
                 {"p95_duration", RSTAT_P95},
                 {"p99_duration", RSTAT_P99},
                 {"first_start_time", RSTAT_FIRST_START},
                 {"gpu_average_duration", RSTAT_GPU_MEAN}};
    for (size_t i = 0; i < regions->count; i++) {
        const jm_node *o = jm_at(regions, i);
        region *r = rank_region(profile_rank(p, 0), jm_string(jm_get(o, "name")));
        assert_non_null(r);
        for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++) {
            double want;
            if (!region_stat(r, stats[k].id, &want))
                check_null(o, stats[k].key);
            else if (num(jm_get(o, stats[k].key)) != want)
                fail_msg("%s %s does not round-trip", r->name, stats[k].key);
        }
    }
    jm_free(root);
    free(c.text);
    profile_free(p);
}

static void test_json_filters(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_include(&f, "in", NULL), SV_OK); /* re.match: a prefix */
    captured c = run(p, &f, W_JSON, NULL);
    jm_node *root = parse_json(&c);
    assert_int_equal(jm_get(root, "regions")->count, 1);
    check_str(jm_at(jm_get(root, "regions"), 0), "name", "inner");
    jm_free(root);
    free(c.text);
    filter_free(&f);

    filter_init(&f);
    assert_int_equal(filter_set_ranks(&f, "1-3", NULL), SV_OK);
    c = run(p, &f, W_JSON, NULL);
    root = parse_json(&c);
    assert_int_equal(jm_get(root, "regions")->count, 0);
    assert_int_equal(num(jm_get(root, "num_ranks")), 0);
    assert_int_equal(jm_get(root, "ranks")->count, 0);
    jm_free(root);
    free(c.text);
    filter_free(&f);
    profile_free(p);
}

static void test_json_no_ranks(void **state)
{
    (void)state;
    profile *p = load("fault_region_no_regions.h5");
    captured c = run_all(p, W_JSON);
    jm_node *root = parse_json(&c);
    assert_int_equal(num(jm_get(root, "num_ranks")), 0);
    check_null(root, "minimum_start_time");
    assert_int_equal(jm_get(root, "regions")->count, 0);
    jm_free(root);
    free(c.text);
    c = run_all(p, W_SUMMARY);
    assert_non_null(strstr(c.text, "(no regions)"));
    free(c.text);
    c = run_all(p, W_CSV);
    assert_int_equal(count_lines(c.text), 1);
    free(c.text);
    profile_free(p);
}

/* ------------------------------------------------------------------ --csv */

static void test_csv_small(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_all(p, W_CSV);
    assert_int_equal(count_lines(c.text), 5);
    char *fields[64];
    char *line = line_at(c.text, 0);
    size_t n = csv_split(line, fields, 64);
    assert_int_equal(n, NKEYS);
    for (size_t k = 0; k < NKEYS; k++)
        assert_string_equal(fields[k], region_keys[k]);
    free_fields(fields, n);
    free(line);

    line = line_at(c.text, 1); /* outer */
    n = csv_split(line, fields, 64);
    assert_int_equal(n, NKEYS);
    assert_string_equal(fields[0], "outer");
    assert_string_equal(fields[2], "2");
    assert_string_equal(fields[3], "true");
    assert_true(strtod(fields[17], NULL) == 6e-7); /* total_exclusive_duration */
    assert_string_equal(fields[18], "");           /* gpu: no column */
    assert_string_equal(fields[21], "0");          /* threads */
    assert_string_equal(fields[22], "demo;io");    /* tags */
    assert_string_equal(fields[23], "app.py");
    assert_string_equal(fields[24], "10");
    free_fields(fields, n);
    free(line);

    line = line_at(c.text, 4); /* reduce: unknown is empty */
    n = csv_split(line, fields, 64);
    assert_int_equal(n, NKEYS);
    assert_string_equal(fields[0], "reduce");
    assert_string_equal(fields[3], "false");
    assert_true(strtod(fields[4], NULL) == 4e-6);
    assert_string_equal(fields[11], "");
    assert_string_equal(fields[21], "");
    assert_string_equal(fields[22], "mpi");
    free_fields(fields, n);
    free(line);
    free(c.text);
    profile_free(p);
}

static void test_csv_quoting(void **state)
{
    (void)state;
    static const struct {
        const char *raw, *field;
    } cases[] = {
        {"plain", "plain"},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "two\\nlines"}, /* escaped first: no raw newline, no quoting */
        {"cr\rbell\x07", "cr\\rbell\\x07"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf b;
        sb_init(&b);
        out_csv_value(&b, &(out_value){.kind = OV_STRING, .s = cases[i].raw});
        assert_string_equal(b.s ? b.s : "", cases[i].field);
        sb_free(&b);
    }
    char *tags[] = {"x,y", "z"};
    strbuf b;
    sb_init(&b);
    out_csv_value(&b, &(out_value){.kind = OV_STRINGS, .strs = tags, .count = 2});
    assert_string_equal(b.s, "\"x,y;z\"");
    sb_reset(&b);
    out_csv_value(&b, &(out_value){.kind = OV_NULL});
    out_csv_value(&b, &(out_value){.kind = OV_BOOL, .b = false});
    out_csv_value(&b, &(out_value){.kind = OV_NS, .i = 1500});
    assert_string_equal(b.s, "false1.5e-06");
    sb_free(&b);
}

/* ------------------------------------------------------------------ --summary */

static void test_summary_small(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_all(p, W_SUMMARY);
    char *head = line_at(c.text, 0);
    assert_non_null(strstr(head, "small.h5"));
    assert_non_null(strstr(head, "ranks: 0"));
    assert_non_null(strstr(head, "minimum start: 1000 ns"));
    free(head);
    /* Lines: header, blank, table header, 4 rows, blank, footnote. */
    assert_int_equal(count_lines(c.text), 9);
    char *rows[5];
    for (size_t i = 0; i < 5; i++)
        rows[i] = line_at(c.text, 2 + i);
    for (size_t i = 1; i < 5; i++) /* right-aligned last column: equal widths (ASCII) */
        assert_int_equal(strlen(rows[i]), strlen(rows[0]));
    assert_non_null(strstr(rows[0], "region"));
    assert_non_null(strstr(rows[0], "p95"));
    assert_non_null(strstr(rows[0], "excl"));
    assert_non_null(strstr(rows[1], "outer"));
    assert_non_null(strstr(rows[1], " 600 ns")); /* exclusive total */
    assert_non_null(strstr(rows[1], " 975 ns")); /* p95 */
    assert_non_null(strstr(rows[2], "inner"));
    assert_non_null(strstr(rows[2], " 400 ns")); /* p50 */
    assert_non_null(strstr(rows[2], " 120 ns")); /* gpu total */
    assert_non_null(strstr(rows[3], "io/write"));
    assert_true(rows[4][0] == '*');
    assert_non_null(strstr(rows[4], "reduce"));
    size_t dashes = 0; /* std, p50, p95, p99, excl, await, gpu */
    for (const char *s = rows[4]; (s = strstr(s, " -")) != NULL; s++)
        dashes++;
    assert_int_equal(dashes, 7);
    for (size_t i = 0; i < 5; i++)
        free(rows[i]);
    char *foot = line_at(c.text, 8);
    assert_true(foot[0] == '*');
    assert_non_null(strstr(foot, "summary-only"));
    free(foot);
    free(c.text);
    profile_free(p);
}

typedef struct wide_rows {
    const char *const *names;
} wide_rows;

static void fill_wide(void *ctx, size_t row, strbuf *cells)
{
    const wide_rows *w = ctx;
    sb_puts(&cells[0], w->names[row]);
    sb_printf(&cells[1], "%zu", row * 100);
}

/* Widths are display columns: a CJK character takes two, an accented letter one. */
static void test_table_display_width(void **state)
{
    (void)state;
    assert_int_equal(out_display_width("\xc3\xa9t\xc3\xa9", 5), 3);
    assert_int_equal(out_display_width("\xe6\xbc\xa2\xe5\xad\x97", 6), 4);
    const char *names[] = {"\xe6\xbc\xa2\xe5\xad\x97", "ab", "\xc3\xa9t\xc3\xa9"};
    wide_rows w = {names};
    table_col cols[] = {{"name", false}, {"n", true}};
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_int_equal(out_table(fp, cols, 2, 3, fill_wide, &w, NULL), SV_OK);
    fclose(fp);
    assert_string_equal(text, "name    n\n"
                              "\xe6\xbc\xa2\xe5\xad\x97    0\n"
                              "ab    100\n"
                              "\xc3\xa9t\xc3\xa9   200\n");
    free(text);
}

/* ------------------------------------------------------------------ --events */

static void test_events_json_inner(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_events(p, "inner", -1, EVENTS_JSON);
    assert_int_equal(c.rc, SV_OK);
    jm_node *root = parse_json(&c);
    check_str(root, "region", "inner");
    check_seconds(root, "minimum_start_time", 1e-6);
    const jm_node *ev = jm_get(root, "events");
    assert_int_equal(ev->count, 3);
    for (size_t i = 0; i < 3; i++) {
        const jm_node *e = jm_at(ev, i);
        assert_int_equal(e->count, 15); /* with a rank column: no --rank */
        for (size_t k = 0; k < 15; k++)
            assert_string_equal(e->items[k]->key, event_keys[k]);
        assert_int_equal(num(jm_get(e, "rank")), 0);
        assert_int_equal(num(jm_get(e, "call_index")), i);
        assert_int_equal(num(jm_get(e, "thread")), 0);
        check_str(e, "thread_name", "MainThread");
        check_null(e, "task");
        check_null(e, "task_name");
        check_null(e, "await");
    }
    const double start[] = {1e-7, 1.1e-6, 1.5e-6}, end[] = {2e-7, 1.6e-6, 1.9e-6};
    const double dur[] = {1e-7, 5e-7, 4e-7};
    const int cid[] = {2, 5, 6}, pid[] = {1, 4, 4};
    const char *meta[] = {"{\"i\": 1}", "", "{}"};
    for (size_t i = 0; i < 3; i++) {
        const jm_node *e = jm_at(ev, i);
        check_seconds(e, "start", start[i]);
        check_seconds(e, "end", end[i]);
        check_seconds(e, "duration", dur[i]);
        check_seconds(e, "exclusive", dur[i]); /* inner has no children */
        assert_int_equal(num(jm_get(e, "call_id")), cid[i]);
        assert_int_equal(num(jm_get(e, "parent_id")), pid[i]);
        check_str(e, "metadata", meta[i]);
    }
    check_seconds(jm_at(ev, 0), "gpu", 5e-8);
    check_null(jm_at(ev, 1), "gpu"); /* -1: no GPU timing */
    check_seconds(jm_at(ev, 2), "gpu", 7e-8);
    jm_free(root);
    free(c.text);
    profile_free(p);
}

static void test_events_outer_rank_csv_text(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_events(p, "outer", 0, EVENTS_CSV);
    assert_int_equal(c.rc, SV_OK);
    assert_int_equal(count_lines(c.text), 3);
    char *fields[32];
    char *line = line_at(c.text, 0);
    size_t n = csv_split(line, fields, 32);
    assert_int_equal(n, 14); /* --rank given: no rank column */
    for (size_t k = 0; k < 14; k++)
        assert_string_equal(fields[k], event_keys[k + 1]);
    free_fields(fields, n);
    free(line);
    const double excl[] = {4e-7, 2e-7}, start[] = {0, 1e-6};
    for (size_t i = 0; i < 2; i++) {
        line = line_at(c.text, 1 + i);
        n = csv_split(line, fields, 32);
        assert_int_equal(n, 14);
        assert_true(strtod(fields[1], NULL) == start[i]);
        assert_true(strtod(fields[4], NULL) == excl[i]);
        assert_string_equal(fields[6], ""); /* no gpu column */
        assert_string_equal(fields[12], "-1");
        free_fields(fields, n);
        free(line);
    }
    free(c.text);

    c = run_events(p, "outer", 0, EVENTS_TEXT);
    assert_int_equal(c.rc, SV_OK);
    assert_non_null(strstr(c.text, "400 ns"));
    assert_non_null(strstr(c.text, "200 ns"));
    assert_non_null(strstr(c.text, "MainThread"));
    assert_null(strstr(c.text, "rank "));
    free(c.text);
    profile_free(p);
}

static void test_events_errors(void **state)
{
    (void)state;
    profile *p = load("small.h5");
    captured c = run_events(p, "reduce", -1, EVENTS_TEXT);
    assert_int_equal(c.rc, SV_ERR_NO_EVENT_DATA);
    assert_non_null(strstr(c.err.msg, "reduce"));
    assert_non_null(strstr(c.err.msg, "event data unavailable"));
    assert_int_equal(sv_err_exit_status(c.rc), 1);
    free(c.text);
    c = run_events(p, "nope", -1, EVENTS_JSON);
    assert_int_equal(c.rc, SV_ERR_NOT_FOUND);
    assert_non_null(strstr(c.err.msg, "small.h5: no region nope"));
    assert_int_equal(sv_err_exit_status(c.rc), 1);
    free(c.text);
    c = run_events(p, "inner", 3, EVENTS_JSON);
    assert_int_equal(c.rc, SV_ERR_NOT_FOUND);
    assert_non_null(strstr(c.err.msg, "rank 3"));
    free(c.text);
    profile_free(p);
}

/* ------------------------------------------------------------------ hostile strings */

static void test_hostile_every_output(void **state)
{
    (void)state;
    profile *p = load("fault_hostile_strings.h5");
    const which ws[] = {W_SUMMARY, W_JSON, W_CSV};
    const char *names[] = {"summary", "json", "csv"};
    for (size_t i = 0; i < 3; i++) {
        captured c = run_all(p, ws[i]);
        assert_clean_output(names[i], c.text, c.len);
        if (ws[i] == W_JSON) { /* escaped, and still the same string once decoded */
            jm_node *root = parse_json(&c);
            check_str(jm_at(jm_get(root, "regions"), 0), "name", HOSTILE_NAME);
            jm_free(root);
        } else {
            assert_non_null(strstr(c.text, "evil\\x1b[31mred\\x07"));
        }
        free(c.text);
    }
    const events_format fmts[] = {EVENTS_TEXT, EVENTS_JSON, EVENTS_CSV};
    for (size_t i = 0; i < 3; i++) {
        captured c = run_events(p, HOSTILE_NAME, -1, fmts[i]);
        assert_int_equal(c.rc, SV_OK);
        assert_clean_output("events", c.text, c.len);
        if (fmts[i] == EVENTS_JSON) {
            jm_node *root = parse_json(&c);
            jm_free(root);
        }
        free(c.text);
    }
    profile_free(p);
}

int main(void)
{
    /* Display widths are measured with wcwidth, which needs a UTF-8 LC_CTYPE. */
    setlocale(LC_CTYPE, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_parse),         cmocka_unit_test(test_json_min_strict),
        cmocka_unit_test(test_json_small),        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_filters),      cmocka_unit_test(test_json_no_ranks),
        cmocka_unit_test(test_csv_small),         cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_summary_small),     cmocka_unit_test(test_table_display_width),
        cmocka_unit_test(test_events_json_inner), cmocka_unit_test(test_events_outer_rank_csv_text),
        cmocka_unit_test(test_events_errors),     cmocka_unit_test(test_hostile_every_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
