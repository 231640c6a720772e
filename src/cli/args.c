/* args: see args.h. */
#ifdef HAVE_CONFIG_H
#include "ui/commands.h"
#include "ui/settings.h"
#include "ui/view.h"
#endif

#include "args.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "isolate/isolate.h"
#include "util/text.h"
#include "util/hooks.h"
#include "util/timefmt.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#ifndef SV_PKGDATADIR
#define SV_PKGDATADIR "/usr/local/share/scopeview"
#endif
#ifndef SV_SRCDATADIR
#define SV_SRCDATADIR "data"
#endif

#define CLI_SIZE_MAX 10000

/* Long-only options get codes above any character. */
enum {
    OPT_SUMMARY = 256,
    OPT_JSON,
    OPT_CSV,
    OPT_EVENTS,
    OPT_LINES,
    OPT_RANK,
    OPT_RANKS,
    OPT_BATCH,
    OPT_SIZE,
    OPT_KEYS,
    OPT_ASCII,
    OPT_MONO,
    OPT_DIFF,
    OPT_CHECK,
    OPT_METRIC,
    OPT_MAX_REGRESSION,
    OPT_FAIL_ON_NEW,
    OPT_MEMORY,
    OPT_CSV_RAW,
    OPT_CONFIG,
    OPT_DUMP_CONFIG,
    OPT_VIEW,
    OPT_OUT_OF_CORE,
    OPT_IMBALANCE,
    OPT_TIMESERIES,
    OPT_EXPORT,
    OPT_FOLDED,
    OPT_FOLDED_RANKS,
    OPT_FROM,
    OPT_TO,
};

static const struct option cli_long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"events", required_argument, NULL, OPT_EVENTS},
    {"lines", required_argument, NULL, OPT_LINES},
    {"rank", required_argument, NULL, OPT_RANK},
    {"include", required_argument, NULL, 'i'},
    {"exclude", required_argument, NULL, 'x'},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"batch", no_argument, NULL, OPT_BATCH},
    {"size", required_argument, NULL, OPT_SIZE},
    {"keys", required_argument, NULL, OPT_KEYS},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"mono", no_argument, NULL, OPT_MONO},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"check", no_argument, NULL, OPT_CHECK},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"max-regression", required_argument, NULL, OPT_MAX_REGRESSION},
    {"fail-on-new", no_argument, NULL, OPT_FAIL_ON_NEW},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"csv-raw", no_argument, NULL, OPT_CSV_RAW},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"dump-config", no_argument, NULL, OPT_DUMP_CONFIG},
    {"view", required_argument, NULL, OPT_VIEW},
    {"out-of-core", no_argument, NULL, OPT_OUT_OF_CORE},
    {"imbalance", no_argument, NULL, OPT_IMBALANCE},
    {"timeseries", required_argument, NULL, OPT_TIMESERIES},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"folded", no_argument, NULL, OPT_FOLDED},
    {"folded-ranks", no_argument, NULL, OPT_FOLDED_RANKS},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {NULL, 0, NULL, 0},
};

/* Leading ':' so a missing argument is told apart from an unknown option. */
static const char cli_short_options[] = ":hVi:x:";

/* Output formats asked for, resolved into a mode once every option is read, so the order of
 * --events and --json/--csv does not matter. */
typedef struct cli_wants {
    bool summary, json, csv;
    bool export, folded; /* --export FORMAT, --folded / --folded-ranks */
} cli_wants;

static int usage_error(FILE *err, const char *what, const char *arg)
{
    char shown[256];
    if (arg) {
        text_escape_buf(shown, sizeof shown, arg);
        fprintf(err, "scopeview: %s '%s' (try 'scopeview --help')\n", what, shown);
    } else {
        fprintf(err, "scopeview: %s (try 'scopeview --help')\n", what);
    }
    return 2;
}

static bool parse_int_range(const char *s, long lo, long hi, int *out)
{
    char *end;
    /* Digits only: strtol would also take signs and leading blanks. */
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* "COLSxROWS", each 1..10000. */
static bool parse_size(const char *s, int *cols, int *rows)
{
    const char *x = strchr(s, 'x');
    char cbuf[16];
    size_t n = x ? (size_t)(x - s) : 0;
    if (!x || n == 0 || n >= sizeof cbuf)
        return false;
    memcpy(cbuf, s, n);
    cbuf[n] = '\0';
    return parse_int_range(cbuf, 1, CLI_SIZE_MAX, cols) &&
           parse_int_range(x + 1, 1, CLI_SIZE_MAX, rows);
}

static bool list_push(const char ***list, size_t *n, const char *s)
{
    const char **grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown)
        return false;
    grown[(*n)++] = s;
    *list = grown;
    return true;
}

/* --diff, --check and their options. */
static int apply_compare_option(int c, cli_options *o, FILE *err)
{
    char *end;
    switch (c) {
    case OPT_DIFF:
    case OPT_CHECK: {
        int want = c == OPT_DIFF ? CLI_COMPARE_DIFF : CLI_COMPARE_CHECK;
        if (o->compare && o->compare != want)
            return usage_error(err, "choose one of --diff and --check", NULL);
        o->compare = want;
        return 0;
    }
    case OPT_METRIC:
        if (strcmp(optarg, "total") && strcmp(optarg, "mean") && strcmp(optarg, "p50") &&
            strcmp(optarg, "p95") && strcmp(optarg, "p99"))
            return usage_error(err, "--metric wants total, mean, p50, p95 or p99, not", optarg);
        o->metric = optarg;
        return 0;
    case OPT_MAX_REGRESSION:
        errno = 0;
        o->max_regression = strtod(optarg, &end) / 100.0;
        if (errno || end == optarg || *end || !(o->max_regression >= 0) || o->max_regression > 1e6)
            return usage_error(err, "--max-regression wants a percentage >= 0, not", optarg);
        return 0;
    default:
        o->fail_on_new = true;
        return 0;
    }
}

/* --export, --folded, --folded-ranks, --from, --to. */
static int apply_export_option(int c, cli_options *o, cli_wants *w, FILE *err)
{
    switch (c) {
    case OPT_EXPORT:
        if (strcmp(optarg, "chrome") == 0)
            o->export_format = EXPORT_CHROME;
        else if (strcmp(optarg, "speedscope") == 0)
            o->export_format = EXPORT_SPEEDSCOPE;
        else if (strcmp(optarg, "folded") == 0)
            o->export_format = EXPORT_FOLDED;
        else
            return usage_error(err, "--export wants chrome, speedscope or folded, not", optarg);
        w->export = true;
        return 0;
    case OPT_FOLDED:
    case OPT_FOLDED_RANKS:
        w->folded = true;
        o->folded_ranks |= c == OPT_FOLDED_RANKS;
        return 0;
    default: {
        bool from = c == OPT_FROM;
        if (!timefmt_parse_ns(optarg, from ? &o->from_ns : &o->to_ns))
            return usage_error(err,
                               from ? "--from wants a time such as 1.5ms, 200us or 2s, not"
                                    : "--to wants a time such as 1.5ms, 200us or 2s, not",
                               optarg);
        *(from ? &o->has_from : &o->has_to) = true;
        return 0;
    }
    }
}

/* One option; returns 0 or the usage status after reporting. */
static int apply_option(int c, cli_options *o, cli_wants *w, FILE *err)
{
    switch (c) {
    case OPT_SUMMARY:
        w->summary = true;
        return 0;
    case OPT_JSON:
        w->json = true;
        return 0;
    case OPT_CSV:
        w->csv = true;
        return 0;
    case OPT_EVENTS:
        o->events_region = optarg;
        return 0;
    case OPT_LINES:
        o->lines_region = optarg;
        return 0;
    case OPT_IMBALANCE:
        o->imbalance = true;
        return 0;
    case OPT_TIMESERIES:
        o->series_region = optarg;
        return 0;
    case OPT_RANK:
        o->has_events_rank = true;
        return parse_int_range(optarg, 0, INT_MAX, &o->events_rank)
                   ? 0
                   : usage_error(err, "--rank needs a rank number, not", optarg);
    case 'i':
    case 'x': {
        bool ok = c == 'i' ? list_push(&o->includes, &o->nincludes, optarg)
                           : list_push(&o->excludes, &o->nexcludes, optarg);
        return ok ? 0 : usage_error(err, "out of memory", NULL);
    }
    case OPT_RANKS:
        o->ranks = optarg;
        return 0;
    case OPT_BATCH:
        o->headless = true;
        return 0;
    case OPT_SIZE:
        return parse_size(optarg, &o->cols, &o->rows)
                   ? 0
                   : usage_error(err, "--size wants COLSxROWS, each 1..10000, not", optarg);
    case OPT_KEYS:
        o->keys = optarg;
        return 0;
    case OPT_ASCII:
        o->ascii = true;
        return 0;
    case OPT_MONO:
        o->mono = true;
        return 0;
    case OPT_DIFF:
    case OPT_CHECK:
    case OPT_METRIC:
    case OPT_MAX_REGRESSION:
    case OPT_FAIL_ON_NEW:
        return apply_compare_option(c, o, err);
    case OPT_MEMORY:
        return isolate_parse_size(optarg, &o->memory)
                   ? 0
                   : usage_error(err, "--memory wants a size such as 512M or 2G, not", optarg);
    case OPT_CSV_RAW:
        o->csv_raw = true;
        return 0;
    case OPT_OUT_OF_CORE:
        o->out_of_core = true;
        return 0;
    case OPT_CONFIG:
        o->config = optarg;
        return 0;
    case OPT_DUMP_CONFIG:
        o->dump_config = true;
        return 0;
    case OPT_VIEW: {
        int id = scope_lookup(optarg);
        if (id < 0 || id >= VIEW_COUNT)
            return usage_error(err, "--view wants a view name (timeline, tree, ...), not", optarg);
        o->view = optarg;
        o->view_id = id;
        return 0;
    }
    case OPT_EXPORT:
    case OPT_FOLDED:
    case OPT_FOLDED_RANKS:
    case OPT_FROM:
    case OPT_TO:
        return apply_export_option(c, o, w, err);
    default:
        return usage_error(err, "unhandled option", NULL);
    }
}

static int report_getopt_error(int c, char **argv, FILE *err)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':')
        return usage_error(err, "missing value for option", arg);
    if (optopt > 0 && optopt < 256) {
        char opt[3] = {'-', (char)optopt, '\0'};
        return usage_error(err, "unknown option", opt);
    }
    return usage_error(err, "unrecognized option", arg);
}

/* --diff BASE NEW [--summary|--json|--csv] or --check BASE NEW. */
static int resolve_compare(cli_options *o, const cli_wants *w, FILE *err)
{
    const char *what = o->compare == CLI_COMPARE_DIFF ? "--diff" : "--check";
    if (!o->file || !o->file2) {
        fprintf(err, "scopeview: %s needs two files, BASE and NEW (try 'scopeview --help')\n",
                what);
        return 2;
    }
    if (o->events_region || o->lines_region || o->imbalance || o->series_region)
        return usage_error(
            err, "--events, --lines, --imbalance and --timeseries cannot be combined with", what);
    if (o->compare == CLI_COMPARE_CHECK && (w->summary || w->json || w->csv))
        return usage_error(err, "--check prints its own report: drop --summary, --json and --csv",
                           NULL);
    if ((int)w->summary + (int)w->json + (int)w->csv > 1)
        return usage_error(err, "choose one of --summary, --json and --csv", NULL);
    o->mode = w->summary ? CLI_SUMMARY : w->json ? CLI_JSON : w->csv ? CLI_CSV : CLI_INTERACTIVE;
    return 0;
}

/* --imbalance or --timeseries REGION: JSON or CSV, nothing else at once. */
static int resolve_aggregate(cli_options *o, const cli_wants *w, FILE *err)
{
    const char *what = o->imbalance ? "--imbalance" : "--timeseries";
    if ((o->imbalance && o->series_region) || o->events_region || o->lines_region)
        return usage_error(err, "choose one of --events, --lines, --imbalance and --timeseries",
                           NULL);
    if (w->summary || w->json == w->csv)
        return usage_error(err, "choose one of --json and --csv for", what);
    if (o->imbalance && o->has_events_rank)
        return usage_error(err, "--rank does not apply to --imbalance (use --ranks)", NULL);
    o->mode = o->imbalance ? CLI_IMBALANCE : CLI_TIMESERIES;
    o->events_format = w->json ? EVENTS_JSON : EVENTS_CSV;
    return 0;
}

/* --export FORMAT FILE... OUT or --folded [FILE...]: OUT is the last argument. */
static int resolve_export(cli_options *o, const cli_wants *w, FILE *err)
{
    if (o->compare || o->events_region || o->lines_region || w->summary || w->json || w->csv)
        return usage_error(err,
                           "--export and --folded cannot be combined with --diff, --check, "
                           "--summary, --json, --csv, --events or --lines",
                           NULL);
    if (o->has_events_rank)
        return usage_error(err, "--rank only applies to --events and --lines; use --ranks", NULL);
    if (w->export && w->folded && o->export_format != EXPORT_FOLDED)
        return usage_error(err, "--folded and --folded-ranks go with --export folded only", NULL);
    if (w->folded)
        o->export_format = EXPORT_FOLDED;
    if (w->export) {
        if (o->nfiles < 2) {
            fprintf(err, "scopeview: --export needs FILE and OUT (OUT may be -) (try "
                         "'scopeview --help')\n");
            return 2;
        }
        o->export_out = o->files[--o->nfiles];
    }
    if (o->has_from && o->has_to && o->from_ns >= o->to_ns)
        return usage_error(err, "--from must come before --to", NULL);
    o->mode = CLI_EXPORT;
    return 0;
}

/* Turns the wanted formats into a mode; checks combinations. */
static int resolve_mode(cli_options *o, const cli_wants *w, FILE *err)
{
    if (w->export || w->folded)
        return resolve_export(o, w, err);
    if (o->has_from || o->has_to)
        return usage_error(err, "--from and --to apply to --export and --folded", NULL);
    if (o->compare)
        return resolve_compare(o, w, err);
    if (o->metric || o->max_regression >= 0 || o->fail_on_new)
        return usage_error(
            err, "--metric, --max-regression and --fail-on-new need --diff or --check", NULL);
    if (o->imbalance || o->series_region)
        return resolve_aggregate(o, w, err);
    if (o->lines_region) {
        if (o->events_region)
            return usage_error(err, "choose one of --events and --lines", NULL);
        if (w->summary)
            return usage_error(err, "--summary cannot be combined with --lines", NULL);
        if (w->json && w->csv)
            return usage_error(err, "choose one of --json and --csv for --lines", NULL);
        o->mode = CLI_LINES;
        o->events_format = w->json ? EVENTS_JSON : w->csv ? EVENTS_CSV : EVENTS_TEXT;
        return 0;
    }
    if (o->events_region) {
        if (w->summary)
            return usage_error(err, "--summary cannot be combined with --events", NULL);
        if (w->json && w->csv)
            return usage_error(err, "choose one of --json and --csv for --events", NULL);
        o->mode = CLI_EVENTS;
        o->events_format = w->json ? EVENTS_JSON : w->csv ? EVENTS_CSV : EVENTS_TEXT;
        return 0;
    }
    if (o->has_events_rank)
        return usage_error(err, "--rank only applies to --events, --lines and --timeseries", NULL);
    if ((int)w->summary + (int)w->json + (int)w->csv > 1)
        return usage_error(err, "choose one of --summary, --json and --csv", NULL);
    o->mode = w->summary ? CLI_SUMMARY : w->json ? CLI_JSON : w->csv ? CLI_CSV : CLI_INTERACTIVE;
    return 0;
}

/* --view opens the viewer on a view: not with a batch output, and a view
 * of the comparison only with --diff. */
static int check_view(const cli_options *o, FILE *err)
{
    if (!o->view)
        return 0;
    if (o->mode != CLI_INTERACTIVE)
        return usage_error(err,
                           "--view is for the viewer and --batch: drop --summary, --json, --csv, "
                           "--events and --lines",
                           NULL);
    size_t n;
    const view_ops *const *reg = views_registry(&n);
    if ((size_t)o->view_id < n && reg[o->view_id]->compare_only && o->compare != CLI_COMPARE_DIFF)
        return usage_error(err, "this view needs --diff BASE NEW:", o->view);
    return 0;
}

int cli_parse(int argc, char **argv, cli_options *o, FILE *err)
{
    cli_wants w = {false, false, false, false, false};
    memset(o, 0, sizeof *o);
    o->mode = CLI_INTERACTIVE;
    o->cols = 80;
    o->rows = 24;
    o->max_regression = -1;

    opterr = 0;
    optind = 0; /* GNU: a full re-initialisation, so cli_parse can run more than once */
    int c;
    while ((c = getopt_long(argc, argv, cli_short_options, cli_long_options, NULL)) != -1) {
        if (c == 'h' || c == 'V') {
            o->mode = c == 'h' ? CLI_HELP : CLI_VERSION;
            return 0;
        }
        int rc = (c == '?' || c == ':') ? report_getopt_error(c, argv, err)
                                        : apply_option(c, o, &w, err);
        if (rc)
            return rc;
    }
    int first = optind;
    if (optind < argc)
        o->file = argv[optind++];
    if (o->compare && optind < argc)
        o->file2 = argv[optind++];
    /* More FILEs: the rank files of one run (PREFIX_rankNNNNN.h5, .spt), kept in a copy of the list
     * (argv's array need not outlive the call). */
    if (!o->compare && optind < argc)
        optind = argc;
    if (o->file && !o->compare) {
        const char **v = malloc((size_t)(optind - first) * sizeof *v);
        if (!v)
            return usage_error(err, "out of memory", NULL);
        for (int i = first; i < optind; i++)
            v[i - first] = argv[i];
        o->files = v;
        o->nfiles = (size_t)(optind - first);
    }
    if (optind < argc)
        return usage_error(err, "too many arguments: unexpected", argv[optind]);
    /* The budget is resolved once, here: every load below takes the value as it is. */
    o->memory = isolate_budget_or_default(o->memory);
    int rc = resolve_mode(o, &w, err);
    return rc ? rc : check_view(o, err);
}

void cli_options_free(cli_options *o)
{
    free(o->includes);
    free(o->excludes);
    free((void *)o->files);
    o->files = NULL;
    o->nfiles = 0;
    o->includes = o->excludes = NULL;
    o->nincludes = o->nexcludes = 0;
}

void cli_print_version(FILE *out)
{
    fprintf(out, "scopeview %s\n", PACKAGE_VERSION);
}

void cli_print_usage(FILE *out)
{
    fputs("Usage: scopeview [OPTION]... [FILE]...\n"
          "View a scope-profiler HDF5 profile in the terminal, or print its statistics.\n"
          "With no FILE, open the bundled demo profile.  Several FILEs are the rank files\n"
          "of one run, opened as one profile: the C API's PREFIX_rank00000.h5 ... and\n"
          "native traces (.spt), mixed; a directory stands for its *.spt and *_rank<N>.h5.\n"
          "\n"
          "Batch outputs (to standard output):\n"
          "      --summary          an aligned table, one row per region and rank; on a\n"
          "                         columnar file with summary_statistics and stored\n"
          "                         exclusive totals, from those alone: p50, p95, p99\n"
          "                         need the per-call columns and show '-' (a file with\n"
          "                         await times, or -1 exclusive totals, is read whole)\n"
          "      --json             every statistic of every region and rank, as JSON\n"
          "      --csv              the same rows and columns as --json, as CSV\n"
          "      --events REGION    one row per recorded call of REGION, on every rank\n"
          "                         that has it (with a rank column) unless --rank is\n"
          "                         given; add --json or --csv for those formats\n"
          "      --lines REGION     the line profile of REGION: per profiled line its\n"
          "                         hits, time, time per hit, share of the function and\n"
          "                         source; add --json or --csv for those formats\n"
          "      --imbalance        per region, the ranks' imbalance: max / mean - 1 of\n"
          "                         their inclusive totals over the ranks that ran it,\n"
          "                         the excess (max - mean), the straggler, the ranks\n"
          "                         that did not run it; with --json or --csv\n"
          "      --timeseries REGION  each call's start and duration in start order (one\n"
          "                         rank with --rank N), and in JSON the p50, p95, p99,\n"
          "                         calls above the p99, warm-up and drift; with --json\n"
          "                         or --csv\n"
          "      --rank N           with --events or --lines: only rank N; with --diff\n"
          "                         or --check: rank N of BASE against rank N of NEW\n"
          "      --csv-raw          CSV cells as they are: no ' before a cell that starts\n"
          "                         with = + - @ tab or CR (spreadsheet formulas)\n"
          "\n"
          "Exports (for Perfetto, chrome://tracing, speedscope, flame graphs):\n"
          "      --export chrome FILE OUT      the Trace Event Format: a pid per rank, a\n"
          "                         tid per lane, an X event per call (us, ns kept)\n"
          "      --export speedscope FILE OUT  speedscope's file format: an evented\n"
          "                         profile per lane\n"
          "      --export folded FILE OUT      folded stacks, as --folded\n"
          "                         OUT may be - (standard output); it is written under a\n"
          "                         temporary name and renamed when complete\n"
          "      --folded           folded stacks to standard output: a line per call\n"
          "                         path with its own (exclusive) time in ns\n"
          "      --folded-ranks     the same with the rank as the first frame\n"
          "      --from T, --to T   only the calls in [T, T) from the profile's start, cut\n"
          "                         to it; times as the ruler shows them: 1.5ms, 200us, 2s\n"
          "\n"
          "Comparing two runs (ranks merged unless --rank N):\n"
          "      --diff BASE NEW    the compare views; with --summary, --json or --csv\n"
          "                         the region and call-path comparison\n"
          "      --check BASE NEW   print the regressions; exit 1 when a significant one\n"
          "                         (Mann-Whitney U, Benjamini-Hochberg p < 0.01) goes\n"
          "                         beyond the threshold, else 0\n"
          "      --metric M         total (default), mean, p50, p95 or p99: the change\n"
          "                         that must pass the threshold\n"
          "      --max-regression PCT  the threshold, percent (default 5)\n"
          "      --fail-on-new      --check: a call path or region only in NEW fails too\n"
          "\n"
          "Filters (for every output and the viewer):\n"
          "  -i, --include RE       only regions whose name matches RE at its start\n"
          "                         (POSIX extended regex); repeatable, any may match\n"
          "  -x, --exclude RE       drop regions whose name matches RE at its start;\n"
          "                         repeatable\n"
          "      --ranks LIST       only these ranks, e.g. 0-3,5\n"
          "\n"
          "Viewer:\n"
          "      --batch            no terminal: replay --keys, print the final screen\n"
          "      --size COLSxROWS   screen size for --batch (default 80x24, 1..10000)\n"
          "      --keys STR         keystrokes to replay with --batch\n"
          "      --ascii            draw with ASCII only, no Unicode glyphs\n"
          "      --mono             no colours\n"
          "      --config FILE      read FILE instead of $XDG_CONFIG_HOME/scopeview/config\n"
          "                         (~/.config/scopeview/config): keys, colours, settings\n"
          "      --dump-config      print the built-in defaults as a config file and exit\n"
          "      --view ID          open on view ID: timeline, tree, regions, calls, info,\n"
          "                         compare (with --diff), lanes, flame\n"
          "\n"
          "      --memory LIMIT     what loading the file may allocate, e.g. 512M, 2G\n"
          "                         (default: half the machine's memory)\n"
          "      --out-of-core      --json, --csv, --summary: stream the calls in chunks\n"
          "                         instead of loading them (chosen by itself when the\n"
          "                         columns exceed --memory); the same figures: count,\n"
          "                         total, mean, min, max, std, first/last exact; p50, p95,\n"
          "                         p99 exact by a second pass that keeps only the calls in\n"
          "                         the histogram bins holding the wanted ranks; exclusive\n"
          "                         time exact, else the file's stored totals or null\n"
          "                         (a warning says which).  The viewer: open out of\n"
          "                         core (also by itself over --memory): the timeline\n"
          "                         from an overview map, the calls read for the span\n"
          "                         when zoomed in; tree, calls and lanes views not\n"
          "                         offered\n"
          "  -h, --help             show this help and exit\n"
          "  -V, --version          show the version and exit\n"
          "\n"
          "Keys in the viewer:\n"
          "  arrows  move    Enter  open    q  quit    ?  every key and what it does\n"
          "\n"
          "When standard output is not a terminal and neither --batch nor a batch\n"
          "output is asked for, scopeview prints the --summary table.  Rows come in\n"
          "order of first start (regions without events last, by name), then rank.\n"
          "Times in --json and --csv are seconds that read back exactly; null (JSON)\n"
          "or an empty field (CSV) means unknown.  Strings from the file are escaped:\n"
          "no control character is ever printed.\n"
          "\n"
          "Exit status:\n"
          "  0    success\n"
          "  1    the file cannot be read or is not a profile; no such region;\n"
          "       no event data for --events; a write error\n"
          "  2    usage error: bad option, regular expression or rank list\n"
          "  141  standard output was closed early (a pipe reader quit)\n",
          out);
}

/* ------------------------------------------------------------------ demo */

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* The directory of the running executable + "/data/demo.h5", or NULL. */
static char *demo_beside_exe(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return path_join(exe, "data/demo.h5");
}

char *cli_find_demo(sv_error *err)
{
    const char *env = hook_value(HOOK_DEMO);
    if (env && *env) {
        char *s = strdup(env);
        if (!s)
            sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return s;
    }
    const char *dirs[] = {SV_PKGDATADIR, SV_SRCDATADIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] + 1; i++) {
        char *s =
            i < sizeof dirs / sizeof dirs[0] ? path_join(dirs[i], "demo.h5") : demo_beside_exe();
        /* The canonical path reads better in the title than "build/../data/demo.h5". */
        char *real = s && access(s, R_OK) == 0 ? realpath(s, NULL) : NULL;
        free(s);
        if (real)
            return real;
    }
    sv_error_set(err, SV_ERR_IO,
                 "no demo profile found (looked in %s, %s and beside the program; set "
                 "SCOPEVIEW_DEMO or give a FILE)",
                 SV_PKGDATADIR, SV_SRCDATADIR);
    return NULL;
}
