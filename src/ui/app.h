/* app: the interactive and headless user interface (the views).
 *
 * main() loads the profile and hands it over here when no batch output was
 * asked for.  The same drawing code serves a real terminal (ncursesw) and
 * the headless screen mode, which prints the final screen as plain text. */
#ifndef SV_APP_H
#define SV_APP_H

#include <stdbool.h>
#include <stdio.h>

#include "model/profile.h"
#include "model/filter.h"

typedef struct app_options {
    const char *path; /* shown in the title; already the loaded file */
    bool headless;    /* --batch: no terminal, print the final screen */
    int cols, rows;   /* --size COLSxROWS for headless */
    const char *keys; /* --keys for headless (may be empty) */
    bool ascii;       /* --ascii: no Unicode glyphs */
    bool mono;        /* --mono: no colours */
    const region_filter *filter;
    const char *config; /* --config FILE; NULL: $XDG_CONFIG_HOME/scopeview/config if any */
    const char *view;   /* --view ID: the view shown first (views.def's name); NULL: the
                         * config's default-view */
    const struct theme_palette *palette; /* set by app_run from the config */
    /* --diff BASE NEW: the NEW profile (the one above is BASE) and their comparison; NULL
     * otherwise.  The compare views show only then. */
    profile *compare;
    struct diff_result *diff;
    /* The statistics still to come from the loading child (isolate.h
     * defer_stats), or NULL; app_run owns it. */
    struct isolate_tail *stats_tail;
    /* Out of core: the file the skeleton profile came from (its
     * overview map and seek index), NULL in memory; ooc_reason says why,
     * for the views that are not offered ("the file exceeds --memory 1 GiB"). */
    const struct ooc_file *ooc;
    const char *ooc_reason;
    /* Out of core, progressively: the open still making its pass
     * (ooc/ooc_open_job.h; app_run owns it), the profile given to app_run
     * the skeleton of the file's index.  Once it is done the app installs
     * its file (the views rebuilt on its skeleton, its statistics' tail
     * started) and puts it in *ooc_taken for the caller to free after
     * app_run; its failure ends the app with its message. */
    struct ooc_open_job *ooc_open;
    struct ooc_file **ooc_taken;
} app_options;

/* Runs the interface; returns the process exit status.  out receives the
 * headless screen. */
int app_run(profile *p, const app_options *o, FILE *out);

#endif
