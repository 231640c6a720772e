/* ooc_run: the viewer out of core (see ooc_run.h). */
#include "ooc_run.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "isolate/isolate.h"
#include "model/budget.h"
#include "ooc/ooc.h"
#include "ooc/ooc_open_job.h"
#include "util/hooks.h"
#include "ui/app.h"
#include "ui/term.h"

bool ooc_run_file_exceeds(const char *path, uint64_t budget)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           (uint64_t)st.st_blocks * 512u > budget;
}

bool ooc_run_over_budget(const char *msg)
{
    return strstr(msg, ISOLATE_OVER_BUDGET_NOTE) != NULL;
}

/* "1 GiB", "256 MiB", "1.5 GiB": the budget as --memory would read it. */
static void budget_text(char *buf, size_t len, uint64_t bytes)
{
    budget_format(buf, len, bytes);
}

static app_options app_opts(const cli_options *o, const region_filter *f, const char *path,
                            const char *reason)
{
    return (app_options){
        .path = path,
        .headless = o->headless,
        .cols = o->cols,
        .rows = o->rows,
        .keys = o->keys,
        .ascii = o->ascii,
        .mono = o->mono,
        .config = o->config,
        .view = o->view,
        .filter = f,
        .ooc_reason = reason,
    };
}

/* The viewer on the whole open: its first frame once the overview is in
 * (a headless screen; a file without an index to read alone). */
static int run_whole(const cli_options *o, const region_filter *f, const char *path,
                     uint64_t budget, const char *reason,
                     int (*check_ranks)(const char *list, const profile *p))
{
    term_progress_state ps;
    term_progress_start(&ps, path);
    /* The open reads the file more than once (statistics, then the map):
     * past the first read the byte count says nothing more. */
    ps.full_note = "out of core, passes over the calls…";
    /* The statistics pass 2 gives (exclusive totals, percentiles) follow the
     * first frame: the views that show them say "computing…" until then. */
    isolate_tail *tail = NULL;
    isolate_options io = {.budget = budget,
                          .progress = o->headless ? NULL : term_progress,
                          .progress_ctx = &ps,
                          .tail = &tail};
    sv_error err;
    sv_error_clear(&err);
    ooc_file *file = NULL;
    sv_err rc = ooc_open_where(path, &io, f, &file, &err);
    term_progress_done(&ps);
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    for (size_t i = 0; i < file->skel->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", file->skel->warnings[i]);
    int status = check_ranks ? check_ranks(o->ranks, file->skel) : 0;
    if (status) {
        isolate_tail_free(tail);
        ooc_file_free(file);
        return status;
    }
    app_options ao = app_opts(o, f, file->path ? file->path : path, reason);
    ao.ooc = file;
    ao.stats_tail = tail; /* the app's from here on */
    setlocale(LC_CTYPE, "");
    status = app_run(file->skel, &ao, stdout);
    ooc_file_free(file);
    return status;
}

/* The skeleton from the file's index (names, ranks, counts, stored
 * statistics; no call read), in its own loading child: a fraction of a
 * second on any size.  SV_ERR_USAGE: the layout has no index to read
 * alone (schema 1, JSON). */
/* The timeline's zero from the stored first starts, or none when a row
 * with calls lacks one (the index holds no other). */
static void skeleton_zero(profile *p)
{
    bool any = false;
    int64_t zero = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (!r->has_event_data || r->st.num_calls == 0)
            continue;
        if (!r->has_stored_summary || !(r->stored.known & (1u << SUM_FIRST_START))) {
            p->has_min_start = false;
            return;
        }
        int64_t v = (int64_t)r->stored.v[SUM_FIRST_START];
        zero = any && zero < v ? zero : v;
        any = true;
    }
    p->has_min_start = any;
    p->min_start_ns = zero;
}

static sv_err load_skeleton(const char *path, uint64_t budget, profile **out, sv_error *err)
{
    isolate_options io = {.budget = budget, .index_only = true, .stats_only = true};
    sv_err e = profile_load_isolated(path, &io, out, err);
    if (!e)
        skeleton_zero(*out);
    return e;
}

int ooc_run_viewer(const cli_options *o, const region_filter *f, const char *path, uint64_t budget,
                   bool forced, int (*check_ranks)(const char *list, const profile *p))
{
    char size[32], reason[96];
    budget_text(size, sizeof size, budget);
    if (forced)
        snprintf(reason, sizeof reason, "--out-of-core");
    else
        snprintf(reason, sizeof reason, "the file exceeds --memory %s", size);
    /* --batch prints the screen once the overview is in, as ever; the
     * test hook holds the overview back for the early frame. */
    bool early = !o->headless || hook_is(HOOK_TEST_OVERVIEW, "hold") ||
                 hook_is(HOOK_TEST_OVERVIEW, "stop") || hook_is(HOOK_TEST_OVERVIEW, "parts") ||
                 hook_is(HOOK_TEST_OVERVIEW, "first");
    if (!early)
        return run_whole(o, f, path, budget, reason, check_ranks);
    sv_error err;
    sv_error_clear(&err);
    profile *skel = NULL;
    sv_err rc = load_skeleton(path, budget, &skel, &err);
    if (rc == SV_ERR_USAGE)
        return run_whole(o, f, path, budget, reason, check_ranks);
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    int status = check_ranks ? check_ranks(o->ranks, skel) : 0;
    if (status) {
        profile_free(skel);
        return status;
    }
    isolate_options io = {.budget = budget};
    ooc_open_job *job = ooc_open_job_start(path, &io, f, skel, hook_is(HOOK_TEST_OVERVIEW, "hold"));
    if (!job) {
        profile_free(skel);
        fprintf(stderr, "scopeview: out of memory\n");
        return 1;
    }
    ooc_file *file = NULL;
    app_options ao = app_opts(o, f, path, reason);
    ao.ooc_open = job; /* the app's from here on */
    ao.ooc_taken = &file;
    setlocale(LC_CTYPE, "");
    status = app_run(skel, &ao, stdout);
    ooc_file_free(file);
    profile_free(skel);
    return status;
}

int ooc_run_open_batch(const region_filter *f, const char *path, uint64_t budget, bool stats,
                       const ooc_sink_hook *hook, ooc_file **out)
{
    isolate_tail *tail = NULL;
    isolate_options io = {.budget = budget, .tail = stats ? NULL : &tail};
    sv_error err;
    sv_error_clear(&err);
    sv_err rc = hook ? ooc_open_hooked(path, &io, f, hook, out, &err)
                     : ooc_open_where(path, &io, f, out, &err);
    isolate_tail_free(tail); /* the statistics are not wanted: the child is ended */
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    for (size_t i = 0; i < (*out)->skel->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", (*out)->skel->warnings[i]);
    return 0;
}
