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
#include "cli/export.h"
#include "cli/export_ooc.h"
#include "cli/outputs.h"
#include "cli/out_diff.h"
#include "cli/ooc_run.h"
#include "model/diff.h"
#include "isolate/diff_remote.h"
#include "model/filter.h"
#include "isolate/isolate.h"
#include "load/loader.h"
#include "model/strip.h"
#include "ooc/ooc.h"
#ifdef SV_MPI
#include "cli/mpi_run.h"
#endif
#include "ui/app.h"
#include "ui/settings.h"
#include "ui/term.h"

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
    /* A write that failed earlier (the outputs stop at ferror) left its errno (ENOSPC for a
     * full disk); fflush of an empty buffer sets none, so keep that one. */
    int earlier = ferror(stdout) ? errno : 0;
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (failed && errno == 0)
        errno = earlier;
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

/* The ranks of p as a list ("0-3,5"), cut short when long. */
static void rank_list(const profile *p, char *buf, size_t len)
{
    char *w = buf;
    size_t left = len;
    buf[0] = '\0';
    for (size_t k = 0; k < p->nranks && left > 16;) {
        size_t z = k;
        while (z + 1 < p->nranks && p->ranks[z + 1].rank == p->ranks[z].rank + 1)
            z++;
        const char *sep = w == buf ? "" : ",";
        int n = z > k ? snprintf(w, left, "%s%d-%d", sep, p->ranks[k].rank, p->ranks[z].rank)
                      : snprintf(w, left, "%s%d", sep, p->ranks[k].rank);
        if (n < 0 || (size_t)n >= left)
            break;
        w += n;
        left -= (size_t)n;
        k = z + 1;
    }
    if (p->nranks == 0)
        snprintf(buf, len, "(none)");
}

/* --ranks naming a rank the file lacks is a usage error (exit 2) that lists the ranks it has,
 * rather than an empty screen or output: every single number must be a rank of the file, and
 * every range must hold one (filter_set_ranks has already checked the syntax). */
static int check_ranks(const char *list, const profile *p)
{
    if (!list)
        return 0;
    for (const char *t = list; *t;) {
        char *end;
        long a = strtol(t, &end, 10), z = a;
        if (end == t) /* not a number: filter_set_ranks has said so */
            return 0;
        if (*end == '-')
            z = strtol(end + 1, &end, 10);
        bool found = false;
        for (size_t k = 0; k < p->nranks && !found; k++)
            found = p->ranks[k].rank >= a && p->ranks[k].rank <= z;
        if (!found) {
            char have[256];
            rank_list(p, have, sizeof have);
            if (a == z)
                fprintf(stderr, "scopeview: --ranks: %s has no rank %ld; its ranks are %s\n",
                        p->path, a, have);
            else
                fprintf(stderr, "scopeview: --ranks: %s has no rank in %ld-%ld; its ranks are %s\n",
                        p->path, a, z, have);
            return 2;
        }
        t = *end == ',' ? end + 1 : end + (*end != '\0');
    }
    return 0;
}

/* Progress is for a person waiting at a terminal for the first frame, never for batch output. */
static int load_profile_ex(const char *file, const isolate_options *how, bool show_progress,
                           profile **p, bool *over_budget);

/* What every load of the run starts from: the memory budget, which cli_parse resolved (args.h),
 * enters main.c here and nowhere else. */
static isolate_options load_base(const cli_options *o)
{
    return (isolate_options){.budget = o->memory};
}

/* how: the budget, a C-API file set (paths), --summary's stored statistics.  over_budget
 * (the viewer's): set, quietly, when the file's columns exceed the budget (cli/ooc_run.h). */
static int load_profile_ex(const char *file, const isolate_options *how, bool show_progress,
                           profile **p, bool *over_budget)
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
        isolate_options io = *how;
        io.progress = show_progress ? term_progress : NULL;
        io.progress_ctx = &ps;
        rc = profile_load_isolated(path, &io, p, &err);
        term_progress_done(&ps);
    }
    free(demo);
    if (rc != SV_OK && over_budget && file && ooc_run_over_budget(err.msg)) {
        *over_budget = true;
        return 1;
    }
    if (rc != SV_OK) {
        /* --events, --timeseries and the exports hold the calls they write: said, not
         * left to be guessed from the list of those that stream. */
        bool held = how->stream == LOAD_STREAM_OFF && ooc_run_over_budget(err.msg);
        fprintf(stderr, "scopeview: %s%s\n", err.msg,
                held ? "; --events, --timeseries and --export do not stream: they need the calls "
                       "within --memory (out of core, the series view D bins them)"
                     : "");
        return sv_err_exit_status(rc);
    }
    for (size_t i = 0; i < (*p)->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", (*p)->warnings[i]);
    return 0;
}

/* The second half of a load started with isolate_start (run_compare): progress, the error or
 * the warnings, as load_profile_ex. */
static int collect_profile(isolate_load *ld, const char *path, bool show_progress, profile **p)
{
    sv_error err;
    term_progress_state ps;
    term_progress_start(&ps, path);
    isolate_set_progress(ld, show_progress ? term_progress : NULL, &ps);
    sv_err rc = isolate_collect(ld, p, &err);
    term_progress_done(&ps);
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    for (size_t i = 0; i < (*p)->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", (*p)->warnings[i]);
    return 0;
}

static int run_viewer(const cli_options *o, profile *p, const region_filter *f, isolate_tail **tail)
{
    app_options ao = {
        .stats_tail = *tail, /* the statistics still to come: app_run's now */
        .path = profile_name(p),
        .headless = o->headless,
        .cols = o->cols,
        .rows = o->rows,
        .keys = o->keys,
        .ascii = o->ascii,
        .mono = o->mono,
        .config = o->config,
        .view = o->view,
        .filter = f,
    };
    *tail = NULL;
    setlocale(LC_CTYPE, "");
    return finish_stdout(app_run(p, &ao, stdout));
}

/* The compare views over both profiles (view/app.h). */
static int run_viewer_compare(const cli_options *o, profile *p[2], diff_result *d,
                              const region_filter *f)
{
    app_options ao = {
        .path = profile_name(p[0]),
        .headless = o->headless,
        .cols = o->cols,
        .rows = o->rows,
        .keys = o->keys,
        .ascii = o->ascii,
        .mono = o->mono,
        .config = o->config,
        .view = o->view,
        .filter = f,
        .compare = p[1],
        .diff = d,
    };
    setlocale(LC_CTYPE, "");
    return finish_stdout(app_run(p[0], &ao, stdout));
}

static int run_output(const cli_options *o, profile *p, const region_filter *f)
{
    sv_error err;
    sv_err rc;
    sv_error_clear(&err);
    use_utf8_ctype();
    errno = 0; /* finish_stdout reads the errno of a failed write */
    if (o->mode == CLI_JSON) {
        rc = out_json(p, f, stdout, &err);
    } else if (o->mode == CLI_CSV) {
        rc = o->csv_raw ? out_csv_raw(p, f, stdout, &err) : out_csv(p, f, stdout, &err);
    } else if (o->mode == CLI_EVENTS) {
        events_request req = {o->events_region, o->has_events_rank, o->events_rank,
                              o->events_format, o->csv_raw};
        rc = out_events(p, f, &req, stdout, stderr, &err);
    } else if (o->mode == CLI_LINES) {
        lines_request req = {o->lines_region, o->has_events_rank, o->events_rank, o->events_format};
        rc = out_lines(p, f, &req, stdout, &err);
    } else if (o->mode == CLI_IMBALANCE) {
        rc = out_imbalance(p, f, o->events_format, o->csv_raw, stdout, &err);
    } else if (o->mode == CLI_TIMESERIES) {
        timeseries_request req = {o->series_region, o->has_events_rank, o->events_rank,
                                  o->events_format};
        rc = out_timeseries(p, f, &req, stdout, &err);
    } else {
        rc = out_summary(p, f, stdout, &err);
    }
    if (rc != SV_OK)
        fprintf(stderr, "scopeview: %s\n", err.msg);
    return finish_stdout(sv_err_exit_status(rc));
}

/* What an export writes to its output (fp): SV_OK, or an error said in err (SV_ERR_IO with
 * errno kept for a write error).  *status: an exit status already said (--ranks), 0 none. */
typedef sv_err (*export_fn)(void *u, FILE *fp, int *status, sv_error *err);

/* --export FORMAT FILE OUT, --folded: the export streamed to OUT (export.h), which is never
 * one of the inputs and never left half written. */
static int run_export_to(const cli_options *o, export_fn fn, void *u)
{
    sv_error err;
    sv_error_clear(&err);
    use_utf8_ctype();
    export_sink sink;
    const char *out = o->export_out ? o->export_out : "-";
    errno = 0;
    sv_err rc = export_sink_open(&sink, out, o->files, o->nfiles, &err);
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(rc);
    }
    int status = 0;
    rc = fn(u, sink.fp, &status, &err);
    int werr = rc == SV_ERR_IO ? errno : 0;
    if (sink.fp == stdout) {
        errno = werr; /* finish_stdout: 141 for a closed pipe, else the reason */
        if (rc == SV_OK || rc == SV_ERR_IO)
            return finish_stdout(rc == SV_OK ? 0 : 1);
    } else {
        /* A write error is the sink's to say, with the file's name. */
        sv_error cerr;
        sv_error_clear(&cerr);
        sv_err closed = export_sink_close(&sink, rc == SV_OK, werr, &cerr);
        if (rc == SV_OK || rc == SV_ERR_IO) {
            rc = closed;
            err = cerr;
        }
    }
    if (status)
        return status;
    if (rc != SV_OK)
        fprintf(stderr, "scopeview: %s\n", err.msg);
    return sv_err_exit_status(rc);
}

typedef struct export_job {
    const cli_options *o;
    profile *p;
    const region_filter *f;
    uint64_t budget;
} export_job;

static export_request export_req(const cli_options *o)
{
    return (export_request){.format = (export_format)o->export_format,
                            .folded_ranks = o->folded_ranks,
                            .range = {o->has_from, o->has_to, o->from_ns, o->to_ns}};
}

static sv_err export_loaded(void *u, FILE *fp, int *status, sv_error *err)
{
    (void)status;
    export_job *j = u;
    export_request req = export_req(j->o);
    return export_write(j->p, j->f, &req, fp, stderr, err);
}

static int run_export(const cli_options *o, profile *p, const region_filter *f)
{
    export_job j = {o, p, f, 0};
    return run_export_to(o, export_loaded, &j);
}

/* The Chrome trace and speedscope out of core: written as the loading child sweeps the
 * calls (cli/export_ooc.h). */
static sv_err export_chrome_ooc(void *u, FILE *fp, int *status, sv_error *err)
{
    export_job *j = u;
    export_request req = export_req(j->o);
    ooc_file *file = NULL;
    sv_err rc =
        req.format == EXPORT_CHROME
            ? export_ooc_chrome(j->o->file, j->budget, j->f, &req.range, fp, stderr, &file, err)
            : export_ooc_speedscope(j->o->file, j->budget, j->f, &req.range, fp, stderr, &file,
                                    err);
    if (file) {
        for (size_t i = 0; i < file->skel->nwarnings; i++)
            fprintf(stderr, "scopeview: warning: %s\n", file->skel->warnings[i]);
        *status = check_ranks(j->o->ranks, file->skel);
    }
    if (*status && rc == SV_OK)
        rc = SV_ERR_USAGE; /* said: the output is not kept */
    ooc_file_free(file);
    return rc;
}

/* An export of a file whose calls exceed --memory (or with --out-of-core): from the
 * skeleton the out-of-core open gives (cli/ooc_run.h), which the writers know by its call
 * paths (export.h), or, for a Chrome trace, while the loading child sweeps the calls. */
static int run_export_ooc(const cli_options *o, const region_filter *f, uint64_t budget)
{
    if (o->export_format == EXPORT_CHROME || o->export_format == EXPORT_SPEEDSCOPE) {
        export_job j = {o, NULL, f, budget};
        return run_export_to(o, export_chrome_ooc, &j);
    }
    ooc_file *file = NULL;
    bool range = o->has_from || o->has_to;
    int status = ooc_run_open_batch(f, o->file, budget, range, export_ooc_folded_hook(), &file);
    if (status == 0)
        status = check_ranks(o->ranks, file->skel);
    if (status == 0 && o->run_name && !profile_set_run_name(file->skel, o->run_name)) {
        fprintf(stderr, "scopeview: out of memory\n");
        status = 1;
    }
    if (status == 0)
        status = run_export(o, file->skel, f);
    ooc_file_free(file);
    return status;
}

/* --diff / --check BASE NEW.  Batch: each profile is freed once the comparison has what it
 * needs, so only one is loaded at a time.  The viewer keeps both. */
/* A side of --diff named as a directory of traces is called after the directory, as a run
 * given alone is (run_files), not after its first file.  False when out of memory. */
static bool name_dir_run(profile *p, const char *named)
{
    struct stat st;
    if (!named || stat(named, &st) != 0 || !S_ISDIR(st.st_mode))
        return true;
    return profile_set_run_name(p, named);
}

static int run_compare(const cli_options *o, const region_filter *f)
{
    bool viewer = o->compare == CLI_COMPARE_DIFF && o->mode == CLI_INTERACTIVE &&
                  (o->headless || isatty(STDOUT_FILENO));
    diff_options dopt;
    diff_options_init(&dopt);
    if (o->metric)
        diff_metric_parse(o->metric, &dopt.metric);
    if (o->max_regression >= 0)
        dopt.threshold = o->max_regression;
    if (o->has_events_rank)
        dopt.rank = o->events_rank;
    dopt.release_calls = !viewer;
    sv_error err;
    sv_error_clear(&err);
    diff_result *d = NULL;
    profile *p[2] = {NULL, NULL};
    const char *files[2] = {o->file, o->file2};
    sv_err rc = diff_begin(&dopt, f, &d, &err);
    int status = 0;
    /* Both files load at once, in two children: NEW's is read while BASE's model is received and
     * compared; NEW's model crosses only then, so the batch still holds one profile at a time. */
    isolate_load *ld[2] = {NULL, NULL};
    isolate_options how = load_base(o);
    /* Batch: each child builds its side of the comparison and sends that, not the columns
     * (diff_remote.h): the nesting and sorting run in both children at once. */
    diff_remote side[2];
    for (int s = 0; s < 2; s++)
        diff_remote_init(&side[s], &dopt, f);
    for (int s = 0; s < 2 && rc == SV_OK && files[0] && files[1]; s++) {
        isolate_options hs = how;
        if (!viewer) {
            hs.prepare = diff_remote_prepare;
            hs.section = &side[s].section;
            hs.prepare_nests = side[s].nests;
        }
        ld[s] = isolate_start(files[s], &hs);
    }
    for (int s = 0; s < 2 && rc == SV_OK && status == 0; s++) {
        bool progress = viewer && !o->headless;
        status = ld[s] ? collect_profile(ld[s], files[s], progress, &p[s])
                       : load_profile_ex(files[s], &how, progress, &p[s], NULL);
        ld[s] = NULL;
        if (status == 0 && !name_dir_run(p[s], files[s]))
            rc = sv_error_set(&err, SV_ERR_NOMEM, "out of memory");
        if (status == 0 && rc == SV_OK)
            rc = diff_remote_ready(&side[s])
                     ? diff_add_remote(d, s, profile_name(p[s]), &side[s], &err)
                     : diff_add(d, s, p[s], &err);
        if (!viewer) {
            profile_free(p[s]);
            p[s] = NULL;
        }
    }
    isolate_cancel(ld[1]); /* BASE failed: NEW's load is not wanted */
    if (rc == SV_OK && status == 0)
        rc = diff_finish(d, &err);
    if (rc == SV_OK && status == 0) {
        if (viewer) {
            status = run_viewer_compare(o, p, d, f);
        } else {
            use_utf8_ctype();
            diff_format fmt = o->mode == CLI_JSON  ? DIFF_OUT_JSON
                              : o->mode == CLI_CSV ? DIFF_OUT_CSV
                                                   : DIFF_OUT_SUMMARY;
            if (o->compare == CLI_COMPARE_CHECK)
                status = finish_stdout(out_check(d, o->fail_on_new, stdout));
            else if ((rc = out_diff(d, fmt, stdout, &err)) == SV_OK)
                status = finish_stdout(0);
        }
    }
    if (rc != SV_OK) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        status = sv_err_exit_status(rc);
    }
    diff_free(d);
    diff_remote_free(&side[0]);
    diff_remote_free(&side[1]);
    profile_free(p[0]);
    profile_free(p[1]);
    return status;
}

static int run(const cli_options *o)
{
#ifdef SV_MPI
    /* Under mpirun, a mode that is not split runs on process 0 alone. */
    if (mpi_run_role(o) == MPI_ROLE_BYSTANDER)
        return 0;
#endif
    if (o->mode == CLI_HELP || o->mode == CLI_VERSION) {
        if (o->mode == CLI_HELP)
            cli_print_usage(stdout);
        else
            cli_print_version(stdout);
        return finish_stdout(0);
    }
    if (o->dump_config) {
        strbuf b;
        sb_init(&b);
        settings_dump_defaults(&b);
        fputs(b.s ? b.s : "", stdout);
        sb_free(&b);
        return finish_stdout(b.oom ? 1 : 0);
    }
    region_filter f;
    profile *p = NULL;
    filter_init(&f);
    int status = build_filter(o, &f);
    if (status == 0 && o->mode == CLI_EXPORT && o->export_out) {
        sv_error err;
        if (export_out_check(o->export_out, o->files, o->nfiles, &err) != SV_OK) {
            fprintf(stderr, "scopeview: %s\n", err.msg);
            status = 1;
        }
    }
    if (status == 0 && o->compare) {
        status = run_compare(o, &f);
        filter_free(&f);
        return status;
    }
    /* Piped without --batch: a terminal UI has nowhere to go, so print the summary. */
    bool viewer = o->mode == CLI_INTERACTIVE && (o->headless || isatty(STDOUT_FILENO));
    isolate_tail *tail = NULL;
    if (status == 0) {
        /* Several FILEs: the C API's rank files, one profile.  --summary reads the columnar
         * index's stored statistics alone when they answer it (loader.h). */
        isolate_options how = load_base(o);
        how.paths = o->files;
        how.npaths = o->nfiles;
        how.stored_statistics = o->mode == CLI_SUMMARY || (o->mode == CLI_INTERACTIVE && !viewer);
        /* --json, --csv, --summary stream a file whose calls exceed the budget (stream.h). */
        bool streams = o->mode == CLI_SUMMARY || o->mode == CLI_JSON || o->mode == CLI_CSV ||
                       o->mode == CLI_LINES || o->mode == CLI_IMBALANCE ||
                       (o->mode == CLI_INTERACTIVE && !viewer);
        how.stream = !streams         ? LOAD_STREAM_OFF
                     : o->out_of_core ? LOAD_STREAM_FORCE
                                      : LOAD_STREAM_AUTO;
        /* The viewer's first frame comes before the statistics (isolate.h defer_stats). */
        how.defer_stats = viewer;
        how.tail = &tail;
#ifdef SV_MPI
        /* mpirun: a split batch load (cli/mpi_run.h); only process 0 prints. */
        mpi_role role = mpi_run_role(o);
        if (role == MPI_ROLE_SPLIT) {
            status = mpi_run_load(o, &how, &p);
            if (!p) {
                filter_free(&f);
                return status;
            }
        } else
#endif
        {
            /* The viewer opens a file out of core with --out-of-core, or when its columns
             * exceed --memory: the file alone does, or the load finds it (cli/ooc_run.h). */
            /* Out of core reads HDF5 files only: a native trace loads in memory. */
            bool can_ooc = viewer && o->file && o->nfiles <= 1 && !profile_path_is_native(o->file);
            bool ooc = can_ooc && (o->out_of_core || ooc_run_file_exceeds(o->file, how.budget));
            /* The batch statistics read no call: the loading child sends the model without
             * its columns (strip.h). */
            if (o->mode == CLI_JSON || o->mode == CLI_CSV || o->mode == CLI_SUMMARY) {
                how.prepare = strip_calls_prepare;
                how.stats_only = true; /* nor read the columns only the calls show */
                /* and stream a large file that streams in one read (load_sink.h) */
                if (how.stream == LOAD_STREAM_AUTO)
                    how.stream = LOAD_STREAM_PREFER;
            }
            /* An export out of core: on the same terms as the viewer's. */
            bool ex_ooc = o->mode == CLI_EXPORT && o->file && o->nfiles <= 1 &&
                          !profile_path_is_native(o->file);
            bool ex_now = ex_ooc && (o->out_of_core || ooc_run_file_exceeds(o->file, how.budget));
            if (ex_ooc && !ex_now)
                status = load_profile_ex(o->file, &how, false, &p, &ex_now);
            if (ex_now) {
                status = run_export_ooc(o, &f, how.budget);
                filter_free(&f);
                return status;
            }
            if (!ooc && !ex_ooc)
                status = load_profile_ex(o->file, &how, viewer && !o->headless, &p,
                                         can_ooc ? &ooc : NULL);
            if (ooc) {
                status = finish_stdout(
                    ooc_run_viewer(o, &f, o->file, how.budget, o->out_of_core, check_ranks));
                isolate_tail_free(tail);
                filter_free(&f);
                return status;
            }
        }
    }
    if (status == 0)
        status = check_ranks(o->ranks, p);
    if (status == 0 && o->run_name && !profile_set_run_name(p, o->run_name)) {
        fprintf(stderr, "scopeview: out of memory\n");
        status = 1;
    }
    if (status == 0)
        status = viewer                  ? run_viewer(o, p, &f, &tail)
                 : o->mode == CLI_EXPORT ? run_export(o, p, &f)
                                         : run_output(o, p, &f);
    isolate_tail_free(tail); /* not handed to the viewer */
    profile_free(p);
    filter_free(&f);
    return status;
}

/* The files of the run (load/loader.h profile_run_paths): a directory given as FILE stands for
 * its native traces and rank files, so the loading child's limits, the file list and the
 * out-of-core choice all see the files themselves. */
static int run_files(const cli_options *o)
{
    if (!o->file || o->compare || o->mode == CLI_HELP || o->mode == CLI_VERSION)
        return run(o);
    char **v;
    size_t n;
    sv_error err;
    sv_err e = profile_run_paths(o->files, o->nfiles, &v, &n, &err);
    if (e) {
        fprintf(stderr, "scopeview: %s\n", err.msg);
        return sv_err_exit_status(e);
    }
    cli_options x = *o;
    /* One directory named: the run is called after it, not its first file. */
    if (o->nfiles == 1 && (n > 1 || strcmp(v[0], o->file) != 0))
        x.run_name = o->file;
    x.file = v[0];
    x.files = (const char *const *)v;
    x.nfiles = n;
    int status = run(&x);
    profile_run_paths_free(v, n);
    return status;
}

int main(int argc, char **argv)
{
    cli_options o;
    /* A closed pipe must show up as a write error we can end quietly on, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    int status = cli_parse(argc, argv, &o, stderr);
    if (status == 0)
        status = run_files(&o);
    cli_options_free(&o);
    return status;
}
