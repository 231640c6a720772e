/* args: the command line of scopeview.
 *
 * cli_parse() only reads argv: it opens no file and builds no filter, so main() decides what a
 * value means (a regular expression, a rank list) and reports those errors itself.  The one value
 * it settles is the memory budget (memory), the default's half of the RAM when --memory is not
 * given, so every load takes one resolved budget. */
#ifndef SV_ARGS_H
#define SV_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/sv_error.h"

typedef enum cli_mode {
    CLI_INTERACTIVE,
    CLI_SUMMARY,
    CLI_JSON,
    CLI_CSV,
    CLI_EVENTS,
    CLI_LINES,      /* --lines REGION; --rank and the format as for --events */
    CLI_IMBALANCE,  /* --imbalance --json|--csv */
    CLI_TIMESERIES, /* --timeseries REGION [--rank N] --json|--csv */
    CLI_EXPORT,     /* --export FORMAT FILE OUT, --folded (export.h) */
    CLI_HELP,
    CLI_VERSION
} cli_mode;

typedef enum events_format { EVENTS_TEXT, EVENTS_JSON, EVENTS_CSV } events_format;

/* String fields point into argv; the lists are malloc'ed (cli_options_free). */
typedef struct cli_options {
    cli_mode mode;
    const char *file; /* NULL: the bundled demo profile */
    /* Every FILE (files[0] == file); nfiles > 1: a C-API rank set, one profile. */
    const char *const *files;
    size_t nfiles;
    const char *run_name; /* the directory FILE named, set by main (NULL: a file) */

    const char *events_region; /* --events REGION */
    const char *lines_region;  /* --lines REGION */
    const char *series_region; /* --timeseries REGION */
    bool imbalance;            /* --imbalance */
    int events_rank;           /* --rank N */
    bool has_events_rank;
    events_format events_format; /* --json / --csv with --events */

    const char **includes; /* --include RE, repeatable */
    size_t nincludes;
    const char **excludes; /* --exclude RE, repeatable */
    size_t nexcludes;
    const char *ranks; /* --ranks LIST, NULL = every rank */

    bool headless;      /* --batch */
    int cols, rows;     /* --size COLSxROWS, default 80x24 */
    const char *keys;   /* --keys STR, NULL = none */
    bool ascii;         /* --ascii */
    bool mono;          /* --mono */
    const char *config; /* --config FILE, NULL = the default config file */
    bool dump_config;   /* --dump-config: print the defaults and exit */
    const char *view;   /* --view ID (views.def's name), NULL = the config's default-view */
    int view_id;        /* its view_id when view is set */
    /* The memory budget in bytes: --memory LIMIT, else the default (isolate.h
     * isolate_budget_or_default); cli_parse resolves it, so it is never 0. */
    uint64_t memory;
    bool csv_raw;     /* --csv-raw: no formula-injection prefix */
    bool out_of_core; /* --out-of-core: stream the batch statistics (model/stream.h) */
    /* --diff / --check BASE NEW (out_diff.h): file is BASE, file2 NEW */
    int compare; /* 0, CLI_COMPARE_DIFF or CLI_COMPARE_CHECK */
    const char *file2;
    const char *metric;    /* --metric, NULL = total */
    double max_regression; /* --max-regression PCT / 100; < 0 = the default */
    bool fail_on_new;      /* --fail-on-new */
    /* --export FORMAT FILE OUT / --folded [--folded-ranks] (export.h): */
    int export_format;      /* EXPORT_CHROME, EXPORT_SPEEDSCOPE or EXPORT_FOLDED */
    const char *export_out; /* OUT, "-" for standard output; NULL with --folded alone */
    bool folded_ranks;      /* --folded-ranks */
    bool has_from, has_to;  /* --from T, --to T: ns from the profile's zero */
    int64_t from_ns, to_ns;
} cli_options;

enum { CLI_COMPARE_DIFF = 1, CLI_COMPARE_CHECK = 2 };

/* Fills o from argv.  Returns 0, or 2 after writing one line to err:
 * "scopeview: <problem> (try 'scopeview --help')".  --help and --version are modes, not
 * actions: the caller prints them.  Always call cli_options_free() afterwards. */
int cli_parse(int argc, char **argv, cli_options *o, FILE *err);
void cli_options_free(cli_options *o);

/* The full --help text and the --version line. */
void cli_print_usage(FILE *out);
void cli_print_version(FILE *out);

/* The bundled demo profile: $SCOPEVIEW_DEMO if set, else the installed copy, else the source
 * tree's copy, else data/demo.h5 beside the executable.  Returns a malloc'ed path, or NULL
 * with err set (SV_ERR_IO) when none exists. */
char *cli_find_demo(sv_error *err);

#endif
