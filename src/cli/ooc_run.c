/* ooc_run: the viewer out of core (see ooc_run.h). */
#include "ooc_run.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "isolate/isolate.h"
#include "model/budget.h"
#include "ooc/ooc.h"
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

int ooc_run_viewer(const cli_options *o, const region_filter *f, const char *path, uint64_t budget,
                   bool forced, int (*check_ranks)(const char *list, const profile *p))
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
    char size[32], reason[96];
    budget_text(size, sizeof size, budget);
    if (forced)
        snprintf(reason, sizeof reason, "--out-of-core");
    else
        snprintf(reason, sizeof reason, "the file exceeds --memory %s", size);
    app_options ao = {
        .path = file->path ? file->path : path,
        .headless = o->headless,
        .cols = o->cols,
        .rows = o->rows,
        .keys = o->keys,
        .ascii = o->ascii,
        .mono = o->mono,
        .config = o->config,
        .view = o->view,
        .filter = f,
        .ooc = file,
        .ooc_reason = reason,
        .stats_tail = tail, /* the app's from here on */
    };
    setlocale(LC_CTYPE, "");
    status = app_run(file->skel, &ao, stdout);
    ooc_file_free(file);
    return status;
}
