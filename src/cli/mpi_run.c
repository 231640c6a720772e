/* mpi_run: the MPI batch run (mpi_run.h): each process loads its rows,
 * processes 1..N-1 send their partial models to process 0 as wire streams
 * in MPI messages, process 0 merges and nests (load_rows.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "budget.h"
#include "load_rows.h"
#include "loader.h"
#include "mpi_run.h"
#include "sanity.h"
#include "text.h"
#include "wire.h"

/* MPI counts are int: a stream goes in pieces of at most this. */
#define MPI_CHUNK ((size_t)64 << 20)
#define TAG_SIZE 1
#define TAG_DATA 2
#define TAG_BUDGET 3

/* The launcher's rank and size (Open MPI, then PMIx / PMI), before MPI_Init:
 * the modes that are not split never initialise MPI. */
static int env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

mpi_role mpi_run_role(const cli_options *o)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", NULL};
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
    int size = env_int(size_vars);
    if (size < 1)
        return MPI_ROLE_NONE;
    bool split =
        !o->compare && (o->mode == CLI_JSON || o->mode == CLI_CSV || o->mode == CLI_SUMMARY);
    if (split)
        return MPI_ROLE_SPLIT;
    return env_int(rank_vars) > 0 ? MPI_ROLE_BYSTANDER : MPI_ROLE_NONE;
}

/* SCOPEVIEW_MPI_VERBOSE=1: each process says what it read, to see the
 * balance (and, in the tests, that the rows were split at all). */
static void say_share(const load_part *pt, const profile *p)
{
    size_t rows = 0, calls = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        rows++;
        calls += p->regions[i]->n;
    }
    fprintf(stderr, "scopeview: MPI process %d of %d: %zu rows, %zu calls\n", pt->index, pt->count,
            rows, calls);
}

/* This process's part, in-process, charged to the memory budget. */
static sv_err load_part_here(const char *path, const isolate_options *how, const load_part *pt,
                             load_budget *bp, profile **p, sv_error *err)
{
    load_budget b = {.limit = how->budget ? how->budget : isolate_default_budget()};
    load_options lo = {.stored_statistics = how->stored_statistics, .budget = &b, .part = pt};
    sv_err e = how->paths && how->npaths > 1
                   ? profile_load_set(how->paths, how->npaths, &lo, p, err)
                   : profile_load(path, &lo, p, err);
    budget_free(&b); /* its record of the datasets read; the figures stay */
    if (!e)
        profile_check_values(*p);
    if (!e && getenv("SCOPEVIEW_MPI_VERBOSE"))
        say_share(pt, *p);
    if (e == SV_ERR_NOMEM && b.exceeded) {
        char epath[400];
        text_escape_buf(epath, sizeof epath, path);
        budget_message(&b, epath, err->msg, sizeof err->msg);
    }
    *bp = b;
    return e;
}

/* The serial load charges every column to one budget: the parts' charges
 * are summed on process 0, so a file over --memory fails under MPI too
 * (the biggest columns named are the largest of every part's). */
static void budget_add(load_budget *sum, const load_budget *part)
{
    sum->used = part->used > UINT64_MAX - sum->used ? UINT64_MAX : sum->used + part->used;
    sum->exceeded = sum->exceeded || part->exceeded;
    for (int i = 0; i < BUDGET_TOP && part->top[i].bytes; i++) {
        int k = BUDGET_TOP;
        while (k > 0 && sum->top[k - 1].bytes < part->top[i].bytes)
            k--;
        if (k == BUDGET_TOP)
            continue;
        memmove(&sum->top[k + 1], &sum->top[k], (size_t)(BUDGET_TOP - 1 - k) * sizeof sum->top[0]);
        sum->top[k] = part->top[i];
    }
}

/* ------------------------------------------------------------ sending */

/* The part (or its error) as a wire stream into an anonymous file, then to
 * process 0 in pieces. */
static int send_part(const profile *p, const sv_error *err, const load_budget *b)
{
    MPI_Send(b, (int)sizeof *b, MPI_BYTE, 0, TAG_BUDGET, MPI_COMM_WORLD);
    int fd = memfd_create("scopeview-mpi", MFD_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = p ? wire_send_profile(fd, p) : wire_send_error(fd, err);
    off_t len = e ? 0 : lseek(fd, 0, SEEK_END);
    if (len < 0)
        e = errno;
    const char *m = NULL;
    if (!e && len > 0) {
        m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            e = errno;
            m = NULL;
        }
    }
    /* Process 0 waits for a size whatever happened: 0 says "no stream". */
    uint64_t size = e ? 0 : (uint64_t)len;
    MPI_Send(&size, 1, MPI_UINT64_T, 0, TAG_SIZE, MPI_COMM_WORLD);
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < MPI_CHUNK ? (size_t)(size - off) : MPI_CHUNK;
        MPI_Send(m + off, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        off += n;
    }
    if (m)
        munmap((void *)m, (size_t)len);
    close(fd);
    return e;
}

/* ------------------------------------------------------------ receiving */

typedef struct mpi_src {
    int from;
    uint64_t left; /* bytes of the stream not yet received */
    char *buf;
    size_t len, pos;
} mpi_src;

static ssize_t mpi_src_read(void *ctx, void *dst, size_t n)
{
    mpi_src *s = ctx;
    if (s->pos == s->len) {
        if (s->left == 0)
            return 0;
        s->len = s->left < MPI_CHUNK ? (size_t)s->left : MPI_CHUNK;
        MPI_Recv(s->buf, (int)s->len, MPI_BYTE, s->from, TAG_DATA, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        s->left -= s->len;
        s->pos = 0;
    }
    size_t k = s->len - s->pos < n ? s->len - s->pos : n;
    memcpy(dst, s->buf + s->pos, k);
    s->pos += k;
    return (ssize_t)k;
}

/* Receives process `from`'s stream whole (a stream wire_recv stops short
 * of is drained, so no send is left hanging). */
static sv_err recv_part(int from, uint64_t budget, load_budget *charged, profile **q, sv_error *err)
{
    *q = NULL;
    MPI_Recv(charged, (int)sizeof *charged, MPI_BYTE, from, TAG_BUDGET, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, from, TAG_SIZE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    mpi_src s = {.from = from, .left = size, .buf = malloc(MPI_CHUNK)};
    if (!s.buf) {
        sv_error_set(err, SV_ERR_NOMEM, "MPI process %d: out of memory", from);
        s.buf = NULL;
    }
    sv_err e = SV_OK;
    if (size == 0) {
        e = sv_error_set(err, SV_ERR_IO, "MPI process %d sent no result", from);
    } else if (s.buf) {
        wire_src src = {mpi_src_read, &s};
        wire_status ws = wire_recv(&src, budget, q, err);
        if (ws != WIRE_PROFILE)
            e = err->code ? err->code : SV_ERR_IO;
    } else {
        e = SV_ERR_NOMEM;
    }
    /* Whatever is left of the stream. */
    char sink[1];
    while (s.buf && mpi_src_read(&s, sink, 1) > 0)
        s.pos = s.len;
    free(s.buf);
    return e;
}

/* ------------------------------------------------------------ the run */

static int print_failure(const sv_error *err, sv_err rc)
{
    fprintf(stderr, "scopeview: %s\n", err->msg);
    return sv_err_exit_status(rc);
}

/* Process 0: its own part, then each other part in process order. */
static int gather(const char *path, const isolate_options *how, const load_part *pt, profile **out)
{
    sv_error err;
    sv_error_clear(&err);
    profile *p = NULL;
    load_budget sum, part;
    double t0 = MPI_Wtime();
    sv_err rc = load_part_here(path, how, pt, &sum, &p, &err);
    double t1 = MPI_Wtime();
    for (int from = 1; from < pt->count; from++) {
        sv_error e1;
        sv_error_clear(&e1);
        profile *q = NULL;
        sv_err r1 = recv_part(from, sum.limit, &part, &q, &e1);
        budget_add(&sum, &part);
        if (!r1 && !rc)
            r1 = load_rows_merge(p, q, &e1);
        profile_free(q);
        if (r1 && !rc) {
            rc = r1;
            err = e1;
        }
    }
    if (!rc && sum.limit && sum.used > sum.limit) {
        char epath[400];
        text_escape_buf(epath, sizeof epath, path);
        budget_message(&sum, epath, err.msg, sizeof err.msg);
        rc = err.code = SV_ERR_NOMEM;
    }
    double t2 = MPI_Wtime();
    if (!rc)
        rc = load_rows_finish(p, &err);
    if (getenv("SCOPEVIEW_MPI_VERBOSE"))
        fprintf(stderr,
                "scopeview: MPI process 0: own rows %.3f s, the others' received and merged "
                "%.3f s, nested %.3f s\n",
                t1 - t0, t2 - t1, MPI_Wtime() - t2);
    if (rc) {
        profile_free(p);
        return print_failure(&err, rc);
    }
    for (size_t i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", p->warnings[i]);
    *out = p;
    return 0;
}

int mpi_run_load(const cli_options *o, const isolate_options *how, profile **p)
{
    *p = NULL;
    MPI_Init(NULL, NULL);
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    load_part pt = {me, np};
    sv_error err;
    sv_error_clear(&err);
    char *demo = o->file ? NULL : cli_find_demo(&err);
    const char *path = o->file ? o->file : demo;
    int status = 0;
    if (me == 0) {
        status = path ? gather(path, how, &pt, p) : print_failure(&err, err.code);
        /* Without a path the others fail alike: their streams are drained. */
        for (int from = 1; !path && from < np; from++) {
            profile *q = NULL;
            sv_error e1;
            load_budget b1;
            recv_part(from, 0, &b1, &q, &e1);
            profile_free(q);
        }
    } else {
        profile *q = NULL;
        load_budget b;
        memset(&b, 0, sizeof b);
        sv_err rc = path ? load_part_here(path, how, &pt, &b, &q, &err) : err.code;
        int e = send_part(rc ? NULL : q, &err, &b);
        profile_free(q);
        if (e)
            fprintf(stderr, "scopeview: MPI process %d: cannot send its rows: %s\n", me,
                    strerror(e));
        status = 0; /* process 0 reports */
    }
    free(demo);
    MPI_Finalize();
    return status;
}
