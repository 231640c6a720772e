/* scopeview: parse the command line, load the profile, build the filter, then print a batch
 * output or hand over to the viewer. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/outputs.h"
#include "filter.h"
#include "isolate.h"
#include "view/app.h"
#include "view/term.h"

/* What a shell reports for a process killed by SIGPIPE (128 + 13): a closed pipe reads the same
 * whether we die of the signal or exit quietly. */
#define EXIT_CLOSED_PIPE 141

/* Batch outputs are UTF-8 whatever the locale says; wcwidth needs a UTF-8 LC_CTYPE to measure
 * them.  LC_NUMERIC stays "C" so numbers print with a '.'. */
static void use_utf8_ctype(void)
{
    const char *set = setlocale(LC_CTYPE, "");
    if (!set || strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
        setlocale(LC_CTYPE, "C.UTF-8");
}

/* True when stdout is a pipe whose reader has gone (poll reports POLLERR then), for the case
 * where errno no longer says EPIPE by the time we look. */
static bool stdout_reader_gone(void)
{
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode))
        return false;
    struct pollfd pfd = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

/* Flushes stdout; a closed pipe ends quietly with 141, another write error with 1. */
static int finish_stdout(int status)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (!failed)
        return status;
    if (errno == EPIPE || stdout_reader_gone())
        return EXIT_CLOSED_PIPE;
    fprintf(stderr, "scopeview: cannot write the output: %s\n",
            errno ? strerror(errno) : "write error");
    return status ? status : 1;
}

static int build_filter(const cli_options *o, region_filter *f)
{
    sv_error err;
    sv_err rc = SV_OK;
    sv_error_clear(&err);
    for (size_t i = 0; i < o->nincludes && rc == SV_OK; i++)
        rc = filter_add_include(f, o->includes[i], &err);
    for (size_t i = 0; i < o->nexcludes && rc == SV_OK; i++)
        rc = filter_add_exclude(f, o->excludes[i], &err);
    if (rc == SV_OK && o->ranks)
        rc = filter_set_ranks(f, o->ranks, &err);
    if (rc == SV_OK)
        return 0;
    int status = sv_err_exit_status(rc);
    fprintf(stderr, "scopeview: %s%s\n", err.msg, status == 2 ? " (try 'scopeview --help')" : "");
    return status;
}

/* Progress is for a person waiting at a terminal for the first frame, never for batch output. */
static int load_profile(const char *file, uint64_t budget, bool show_progress, profile **p)
{
    sv_error err;
    sv_error_clear(&err);
    char *demo = file ? NULL : cli_find_demo(&err);
    const char *path = file ? file : demo;
    sv_err rc = path ? SV_OK : err.code;
    if (rc == SV_OK) {
        /* The whole load runs in a child process (isolate.h): libhdf5 never parses the file in
         * the viewer's own process. */
        term_progress_state ps;
        term_progress_start(&ps, path);
        isolate_options io = {show_progress ? term_progress : NULL, &ps, budget};
        rc = profile_load_isolated(path, &io, p, &err);
        term_progress_done(&ps);
    }
    free(demo);
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    for (size_t i = 0; i < (*p)->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", (*p)->warnings[i]);
    return 0;
}

static int run_viewer(const cli_options *o, profile *p, const region_filter *f)
{
    app_options ao = {
        .path = p->path,
        .headless = o->headless,
        .cols = o->cols,
        .rows = o->rows,
        .keys = o->keys,
        .ascii = o->ascii,
        .mono = o->mono,
        .filter = f,
    };
    setlocale(LC_CTYPE, "");
    return finish_stdout(app_run(p, &ao, stdout));
}

static int run_output(const cli_options *o, profile *p, const region_filter *f)
{
    sv_error err;
    sv_err rc;
    sv_error_clear(&err);
    use_utf8_ctype();
    if (o->mode == CLI_JSON) {
        rc = out_json(p, f, stdout, &err);
    } else if (o->mode == CLI_CSV) {
        rc = out_csv(p, f, stdout, &err);
    } else if (o->mode == CLI_EVENTS) {
        events_request req = {o->events_region, o->has_events_rank, o->events_rank,
                              o->events_format};
        rc = out_events(p, f, &req, stdout, stderr, &err);
    } else {
        rc = out_summary(p, f, stdout, &err);
    }
    if (rc != SV_OK)
        fprintf(stderr, "scopeview: %s\n", err.msg);
    return finish_stdout(sv_err_exit_status(rc));
}

static int run(const cli_options *o)
{
    if (o->mode == CLI_HELP || o->mode == CLI_VERSION) {
        if (o->mode == CLI_HELP)
            cli_print_usage(stdout);
        else
            cli_print_version(stdout);
        return finish_stdout(0);
    }
    region_filter f;
    profile *p = NULL;
    filter_init(&f);
    int status = build_filter(o, &f);
    /* Piped without --batch: a terminal UI has nowhere to go, so print the summary. */
    bool viewer = o->mode == CLI_INTERACTIVE && (o->headless || isatty(STDOUT_FILENO));
    if (status == 0)
        status = load_profile(o->file, o->memory, viewer && !o->headless, &p);
    if (status == 0)
        status = viewer ? run_viewer(o, p, &f) : run_output(o, p, &f);
    profile_free(p);
    filter_free(&f);
    return status;
}

int main(int argc, char **argv)
{
    cli_options o;
    /* A closed pipe must show up as a write error we can end quietly on, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    int status = cli_parse(argc, argv, &o, stderr);
    if (status == 0)
        status = run(&o);
    cli_options_free(&o);
    return status;
}
