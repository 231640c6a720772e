/* isolate: the load in a child process, under limits, watched (isolate.h).
 *
 * Two pipes from the child: progress (16-byte records, non-blocking on the
 * child's side: a full pipe means the parent has not looked yet) and the
 * answer (wire.h).  The parent reads the answer through a source that polls
 * both, so a child that stops making progress, at any stage, is killed
 * after the stall deadline. */
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/budget.h"
#include "isolate_defer.h"
#include "stats_local.h"
#include "load/loader.h"
#include "model/sanity.h"
#include "util/text.h"
#include "wire.h"
#include "wire_stats.h"
#include "util/hooks.h"

/* ASan and TSan reserve terabytes of address space up front: RLIMIT_AS
 * would make every later mapping fail, so a sanitized build goes without it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ISO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ISO_ASAN 1
#endif
#endif
#ifndef ISO_ASAN
#define ISO_ASAN 0
#endif

#define MIB ((uint64_t)1 << 20)
/* Address space for libhdf5, the C library and the loader's own tables
 * above the columns the budget allows. */
#define ISO_AS_BASE (256 * MIB)
/* No progress for 10 s, plus 1 s per 64 MiB stored (one huge dataset is
 * one H5Dread, without progress inside it), kills the child. */
#define ISO_STALL_BASE 10
#define ISO_BYTES_PER_S (64 * MIB)
/* A busy loop is a hang whoever watches: the CPU limit backs the watchdog
 * up generously (60 s plus 1 s per MiB stored). */
#define ISO_CPU_BASE 60
#define ISO_CPU_BYTES_PER_S MIB
#define ISO_TICK_MS 100
/* The child's exit status when the answer could not be written. */
#define ISO_EXIT_WIRE 4
/* A progress record whose first word is this announces work (iso_on_charge). */
#define ISO_WORK_MARK UINT64_MAX
#define ISO_MIN_BUDGET (256 * MIB)

typedef struct iso_limits {
    uint64_t stored; /* bytes the file really occupies */
    uint64_t budget;
    uint64_t as_bytes;
    unsigned stall_s;
    rlim_t cpu_s;
    rlim_t cpu_hard; /* what announced work can raise cpu_s to */
} iso_limits;

/* The bytes a file really stores: its allocated blocks (a sparse file's
 * holes cost nothing to read), never more than its size. */
static uint64_t iso_stored_bytes(const struct stat *st)
{
    uint64_t blocks = (uint64_t)st->st_blocks;
    uint64_t alloc = blocks > UINT64_MAX / 512 ? UINT64_MAX : blocks * 512;
    uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
    return alloc < size ? alloc : size;
}

static iso_limits iso_limits_for(uint64_t stored, uint64_t budget)
{
    iso_limits l;
    l.stored = stored;
    l.budget = budget;
    l.as_bytes = budget > UINT64_MAX - ISO_AS_BASE ? UINT64_MAX : budget + ISO_AS_BASE;
    uint64_t stall = ISO_STALL_BASE + stored / ISO_BYTES_PER_S;
    l.stall_s = stall > 3600 ? 3600 : (unsigned)stall;
    l.cpu_s = ISO_CPU_BASE + (rlim_t)(stored / ISO_CPU_BYTES_PER_S);
    l.cpu_hard = l.cpu_s + 1 + (rlim_t)(budget / ISO_BYTES_PER_S);
    return l;
}

uint64_t isolate_default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    uint64_t b = ram / 2;
    return b < ISO_MIN_BUDGET ? ISO_MIN_BUDGET : b;
}

uint64_t isolate_budget_or_default(uint64_t bytes)
{
    return bytes ? bytes : isolate_default_budget();
}

bool isolate_parse_size(const char *s, uint64_t *bytes)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0))
        return false;
    uint64_t mult = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mult = (uint64_t)1 << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = (uint64_t)1 << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = (uint64_t)1 << 30;
        end++;
        break;
    case 't':
    case 'T':
        mult = (uint64_t)1 << 40;
        end++;
        break;
    default:
        break;
    }
    if (mult > 1 && *end == 'i')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return false;
    double b = v * (double)mult;
    if (!(b >= 1) || b >= 18e18)
        return false;
    *bytes = (uint64_t)b;
    return true;
}

bool isolate_disabled(void)
{
    const char *a = hook_value(HOOK_IN_PROCESS), *b = hook_value(HOOK_NO_PROBE);
    return (a && strcmp(a, "1") == 0) || (b && strcmp(b, "1") == 0);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ child */

/* Reports come from the load's thread and, out of core, from its chunk
 * reader's: the last report's time is claimed atomically, so one of two
 * reports in the same tick is dropped, never both written. */
typedef struct iso_ticker {
    int fd;
    _Atomic int64_t last_ms;
} iso_ticker;

static void iso_tick(void *ctx, uint64_t done, uint64_t total)
{
    iso_ticker *t = ctx;
    int64_t now = now_ms();
    int64_t last = atomic_load_explicit(&t->last_ms, memory_order_relaxed);
    if (now - last < ISO_TICK_MS ||
        !atomic_compare_exchange_strong_explicit(&t->last_ms, &last, now, memory_order_relaxed,
                                                 memory_order_relaxed))
        return;
    uint64_t rec[2] = {done, total};
    /* Atomic (below PIPE_BUF); a full pipe drops the record. */
    (void)!write(t->fd, rec, sizeof rec);
}

static void iso_set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {soft, hard};
    /* A limit that cannot be set only weakens containment: carry on. */
    (void)setrlimit(resource, &rl);
}

/* Test hook (tests/isolate.sh, SCOPEVIEW_TEST_DURING_LOAD): at the load's
 * first progress report, while the file is open and partly read, the child
 * changes the file under the load ("truncate=N") and then, if asked, dies
 * as libhdf5 would on a damaged file ("crash").  Actions, not a shell
 * command: the loading child runs no other program. */
typedef struct iso_hook {
    iso_ticker ticker;
    _Atomic(const char *) actions; /* NULL once done (taken by one thread) */
    const char *path;
} iso_hook;

static void iso_hook_act(const char *actions, const char *path)
{
    const char *t = strstr(actions, "truncate=");
    if (t)
        (void)!truncate(path, (off_t)strtoll(t + 9, NULL, 10));
    if (strstr(actions, "crash"))
        raise(SIGSEGV);
}

static void iso_hook_tick(void *ctx, uint64_t done, uint64_t total)
{
    iso_hook *h = ctx;
    const char *a = atomic_load_explicit(&h->actions, memory_order_relaxed)
                        ? atomic_exchange_explicit(&h->actions, NULL, memory_order_relaxed)
                        : NULL;
    if (a)
        iso_hook_act(a, h->path);
    iso_tick(&h->ticker, done, total);
}

/* The sink io asks for (load_sink.h), the model finished as fin says;
 * later: a streamed load stops after pass 1 (light_first). */
static load_sink iso_sink(const isolate_options *io, load_finish fin, bool later)
{
    if (io && io->window)
        return load_sink_window(io->window);
    load_sink s = load_sink_stream(io ? io->stream : LOAD_STREAM_OFF, fin);
    s.stats_later = later;
    s.pass = io ? io->streamed : NULL;
    s.pass_ctx = io ? io->streamed_ctx : NULL;
    return s;
}

/* The load itself (in the child, or in-process when isolation is off), every column charged to
 * the memory budget first; fin and later as iso_sink's. */
static sv_err iso_load(const char *path, const isolate_options *io, load_budget *bp,
                       load_options *opt, load_finish fin, bool later, profile **p, sv_error *err)
{
    load_budget b = *bp;
    load_sink sink = iso_sink(io, fin, later);
    bool declined = false;
    sink.declined = &declined;
    opt->budget = &b;
    opt->sink = &sink;
    opt->stored_statistics = io && io->stored_statistics;
    opt->stats_only = io && io->stats_only;
    opt->index_only = io && io->index_only;
    sv_err e = io && io->paths && io->npaths > 1
                   ? profile_load_set(io->paths, io->npaths, opt, p, err)
                   : profile_load(path, opt, p, err);
    /* Out of core (stream_col.h): the batch outputs load it again as load_sink_retry says. */
    while (load_sink_retry(&sink, e, &b)) {
        budget_free(&b);
        b = *bp;
        sv_error_clear(err);
        e = io && io->paths && io->npaths > 1 ? profile_load_set(io->paths, io->npaths, opt, p, err)
                                              : profile_load(path, opt, p, err);
    }
    opt->budget = NULL;
    opt->sink = NULL;
    budget_free(&b);
    /* deferred: checked after the statistics (isolate_defer.c, the full load after a light
     * one) or the nesting (prepare) */
    if (!e && fin == LOAD_FINISH_ALL && !later)
        profile_check_values(*p);
    if (e == SV_ERR_NOMEM && b.exceeded) {
        char epath[400]; /* a path over 200 characters stays whole */
        text_escape_buf(epath, sizeof epath, path);
        budget_message(&b, epath, err->msg, sizeof err->msg);
        isolate_budget_note(&b, sink.stream, sink.pass != NULL, err->msg, sizeof err->msg);
    }
    return e;
}

void isolate_budget_note(const load_budget *b, int stream, bool viewer, char *msg, size_t cap)
{
    size_t len = strlen(msg);
    if (len >= cap)
        return;
    if (stream == LOAD_STREAM_OFF)
        snprintf(msg + len, cap - len, "%s", ISOLATE_OVER_BUDGET_NOTE);
    else if (b->not_streamed[0]) /* stream_col.h sc_claim */
        snprintf(msg + len, cap - len, "; not streamed out of core: %s", b->not_streamed);
    else if (b->streamed)
        snprintf(msg + len, cap - len, "; even streamed (out of core) the load needs more");
    else if (viewer) /* ooc_open: its pass streams columnar files, not schema 1 */
        snprintf(msg + len, cap - len,
                 "; out of core, schema 2 and 3 files are streamed but a schema 1 file or a "
                 "JSON profile must fit the budget");
    else
        snprintf(msg + len, cap - len,
                 "; this file's layout is not streamed out of core: it must fit the budget");
}

/* Work announced by the load (budget.h on_charge): a column of `bytes` is about to be read, in
 * one libhdf5 call without progress inside.  The child's CPU limit and the parent's deadline
 * grow by 1 s per 64 MiB of it: deadlines follow declared work, bounded by the budget, not the
 * file's apparent size. */
typedef struct iso_work {
    iso_ticker *ticker;
    rlim_t cpu_s, cpu_hard;
} iso_work;

static void iso_on_charge(void *ctx, uint64_t bytes)
{
    iso_work *w = ctx;
    rlim_t more = (rlim_t)(bytes / ISO_BYTES_PER_S);
    if (more == 0)
        return;
    w->cpu_s = w->cpu_s + more < w->cpu_hard ? w->cpu_s + more : w->cpu_hard;
    iso_set_limit(RLIMIT_CPU, w->cpu_s, w->cpu_hard);
    uint64_t rec[2] = {ISO_WORK_MARK, bytes};
    (void)!write(w->ticker->fd, rec, sizeof rec);
}

static bool iso_any_streamed(const profile *p)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i]->streamed)
            return true;
    return false;
}

/* Whether full's regions are the sent model's, in the same order. */
static bool iso_same_regions(const profile *sent, const profile *full)
{
    if (sent->nregions != full->nregions || sent->nranks != full->nranks)
        return false;
    for (size_t i = 0; i < sent->nregions; i++) {
        const region *a = sent->regions[i], *b = full->regions[i];
        if (strcmp(a->name, b->name) != 0 || a->st.num_calls != b->st.num_calls)
            return false;
    }
    return true;
}

/* Drops full's warnings that the sent model has already (the full load
 * repeats the light one's). */
static void iso_new_warnings(const profile *sent, profile *full)
{
    size_t keep = 0;
    for (size_t i = 0; i < full->nwarnings; i++) {
        bool seen = false;
        for (size_t j = 0; !seen && j < sent->nwarnings; j++)
            seen = strcmp(full->warnings[i], sent->warnings[j]) == 0;
        if (seen)
            free(full->warnings[i]);
        else
            full->warnings[keep++] = full->warnings[i];
    }
    full->nwarnings = keep;
}

/* light_first's second half: the file loaded again in full, its
 * statistics sent on tail_fd (wire_stats.h).  0, or an errno value. */
static int iso_full_tail(const char *path, const isolate_options *io, load_budget *b,
                         iso_hook *hook, profile *sent, bool partial, int tail_fd)
{
    if (!partial) /* nothing was left for later */
        return wire_send_stats(tail_fd, sent, sent->nwarnings);
    isolate_options io2 = *io;
    io2.streamed = NULL;
    io2.streamed_ctx = NULL;
    load_options opt = {.progress = iso_hook_tick, .progress_ctx = hook};
    sv_error err;
    profile *full = NULL;
    sv_err e = iso_load(path, &io2, b, &opt, LOAD_FINISH_ALL, false, &full, &err);
    if (!e && !iso_same_regions(sent, full)) {
        char epath[400];
        text_escape_buf(epath, sizeof epath, path);
        e = sv_error_set(&err, SV_ERR_DAMAGED,
                         "%s: the file changed while it was being read (is a job still writing "
                         "it?); reopen it",
                         epath);
    }
    if (e)
        return wire_send_error(tail_fd, &err);
    iso_new_warnings(sent, full);
    return wire_send_stats(tail_fd, full, 0);
}

/* Runs in the child: limits, the load, the answer.  Never returns. */

static void iso_child(const char *path, const isolate_options *io, const iso_limits *l, int prog_fd,
                      int data_fd, int tail_fd, int shm_fd)
{
    /* No core file, not even through a core_pattern pipe (which ignores
     * RLIMIT_CORE); and no orphan child spinning after the parent died. */
    iso_set_limit(RLIMIT_CORE, 0, 0);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() == 1)
        _exit(1);
    iso_set_limit(RLIMIT_CPU, l->cpu_s, l->cpu_hard);
    fcntl(prog_fd, F_SETFL, O_NONBLOCK);
    if (!ISO_ASAN)
        iso_set_limit(RLIMIT_AS, l->as_bytes, l->as_bytes);
    /* The parent's signal handlers (terminal restore) are not ours. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    /* Test hook (tests/screens/tmux_ooc_sigterm.sh): a window's child stops at once, as one
     * SIGSTOPped from outside would. */
    if (io->window && hook_is(HOOK_TEST_WINDOW, "stop"))
        raise(SIGSTOP);
    iso_hook hook = {{prog_fd, now_ms()}, hook_value(HOOK_TEST_DURING_LOAD), path};
    /* Silent: the parent gives the one-line verdict (a sanitizer's report
     * included; SCOPEVIEW_IN_PROCESS=1 shows it in-process). */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        if (!hook_value(HOOK_CHILD_STDERR))
            dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    bool defer = io->defer_stats && !io->prepare;
    bool light = io->light_first && tail_fd >= 0;
    load_finish fin = defer                              ? LOAD_FINISH_NONE
                      : io->prepare && io->prepare_nests ? LOAD_FINISH_NO_NEST
                                                         : LOAD_FINISH_ALL;
    load_options opt = {.progress = iso_hook_tick, .progress_ctx = &hook};
    sv_error err;
    profile *p = NULL;
    iso_work work = {&hook.ticker, l->cpu_s, l->cpu_hard};
    load_budget b = {.limit = l->budget, .on_charge = iso_on_charge, .on_charge_ctx = &work};
    sv_err e = iso_load(path, io, &b, &opt, fin, light, &p, &err);
    if (defer) /* the model now, its statistics on tail_fd next */
        _exit(isolate_defer_send(p, e, &err, data_fd, tail_fd, shm_fd) ? ISO_EXIT_WIRE : 0);
    bool partial = light && !e && iso_any_streamed(p); /* before prepare strips it */
    if (!e && io->prepare)
        e = io->prepare(io->section ? io->section->ctx : NULL, &p, &err);
    int wr = e ? wire_send_error(data_fd, &err)
               : wire_send_profile_shm(data_fd, shm_fd, p, true, io->section);
    if (light && !e && !wr) {
        close(data_fd);
        if (io->sent)
            io->sent(io->section ? io->section->ctx : NULL);
        b = (load_budget){.limit = l->budget, .on_charge = iso_on_charge, .on_charge_ctx = &work};
        wr = iso_full_tail(path, io, &b, &hook, p, partial, tail_fd);
    }
    /* No profile_free: the exit frees it at once.  _exit: the parent's
     * stdio buffers and atexit handlers are not ours. */
    _exit(wr ? ISO_EXIT_WIRE : 0);
}

/* ------------------------------------------------------------ parent */

typedef struct iso_watch {
    int prog_fd, data_fd;
    int shm_fd; /* the socket the shared columns' memfd comes on, or -1 */
    unsigned stall_s;
    int64_t deadline;
    bool stalled;
    bool cancelled;    /* opt->cancel was set */
    uint64_t window_s; /* the current deadline's length (grows with announced work) */
    const isolate_options *opt;
} iso_watch;

static void iso_drain_progress(iso_watch *w)
{
    uint64_t rec[64][2];
    ssize_t k = read(w->prog_fd, rec, sizeof rec);
    if (k == 0) {
        close(w->prog_fd); /* the child is gone, or going */
        w->prog_fd = -1;
        return;
    }
    if (k < 0)
        return;
    int64_t now = now_ms();
    w->deadline = now + (int64_t)w->stall_s * 1000;
    w->window_s = w->stall_s;
    size_t n = (size_t)k / sizeof rec[0];
    for (size_t i = 0; i < n; i++) {
        if (rec[i][0] != ISO_WORK_MARK) {
            if (w->opt && w->opt->progress)
                w->opt->progress(w->opt->progress_ctx, rec[i][0], rec[i][1]);
            continue;
        }
        uint64_t s = w->stall_s + rec[i][1] / ISO_BYTES_PER_S;
        int64_t d = now + (int64_t)(s > 86400 ? 86400 : s) * 1000;
        if (d > w->deadline) {
            w->deadline = d;
            w->window_s = s;
        }
    }
}

/* wire_src.read: the answer's bytes, while the watchdog runs. */
static ssize_t iso_read(void *ctx, void *buf, size_t n)
{
    iso_watch *w = ctx;
    for (;;) {
        int64_t left = w->deadline - now_ms();
        if (left <= 0) {
            w->stalled = true;
            return -1;
        }
        /* A cancellable load wakes up to look at its flag: a stopped child would
         * otherwise keep the caller until the stall deadline. */
        if (w->opt && w->opt->cancel) {
            if (atomic_load(w->opt->cancel)) {
                w->cancelled = true;
                return -1;
            }
            left = left < ISOLATE_CANCEL_MS ? left : ISOLATE_CANCEL_MS;
        }
        struct pollfd pfd[2] = {{.fd = w->data_fd, .events = POLLIN},
                                {.fd = w->prog_fd, .events = POLLIN}};
        int rc = poll(pfd, w->prog_fd >= 0 ? 2 : 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return -1;
        if (w->prog_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
            iso_drain_progress(w);
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t k = read(w->data_fd, buf, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k > 0) {
            w->deadline = now_ms() + (int64_t)w->stall_s * 1000;
            w->window_s = w->stall_s;
        }
        return k;
    }
}

/* wire_src.recv_fd: the memfd of the shared columns, under the same
 * watch as the answer's bytes (the child sends it before the stream
 * that needs it).  -1 when the child sends none. */
static int iso_recv_fd(void *ctx)
{
    iso_watch *w = ctx;
    if (w->shm_fd < 0)
        return -1;
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    for (;;) {
        int64_t left = w->deadline - now_ms();
        if (left <= 0 || (w->opt && w->opt->cancel && atomic_load(w->opt->cancel))) {
            w->stalled = left <= 0;
            w->cancelled = left > 0;
            return -1;
        }
        left = left < ISOLATE_CANCEL_MS ? left : ISOLATE_CANCEL_MS;
        struct pollfd pfd[2] = {{.fd = w->shm_fd, .events = POLLIN},
                                {.fd = w->prog_fd, .events = POLLIN}};
        int rc = poll(pfd, w->prog_fd >= 0 ? 2 : 1, (int)left);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc > 0 && w->prog_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
            iso_drain_progress(w);
        if (rc > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            break;
    }
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t k;
    while ((k = recvmsg(w->shm_fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    int fd = -1;
    for (struct cmsghdr *c = k == 1 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < nfd; i++) { /* one expected: any other is closed */
            int got;
            memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
            if (fd < 0)
                fd = got;
            else
                close(got);
        }
    }
    if (fd >= 0 && (msg.msg_flags & MSG_CTRUNC)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Descriptors above stderr: with stdout closed, pipe2 would hand out fd 1,
 * which the child then replaces by /dev/null. */
static bool iso_above_stderr(int fds[2])
{
    for (int i = 0; i < 2; i++) {
        if (fds[i] > STDERR_FILENO)
            continue;
        int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        close(fds[i]);
        fds[i] = fd;
    }
    if (fds[0] >= 0 && fds[1] >= 0)
        return true;
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    return false;
}

static bool iso_pipe(int fds[2])
{
    return pipe2(fds, O_CLOEXEC) == 0 && iso_above_stderr(fds);
}

/* The channel of the shared columns' memfd (SCM_RIGHTS needs a unix
 * socket; the answer stays on a pipe for vmsplice).  None (-1, the
 * columns then cross the pipe) when SCOPEVIEW_TEST_PIPE=1 forces the
 * fallback, or when no socket can be made. */
static void iso_shm_channel(int fds[2])
{
    fds[0] = fds[1] = -1;
    if (hook_is(HOOK_TEST_PIPE, "1"))
        return;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0 || !iso_above_stderr(fds))
        fds[0] = fds[1] = -1;
}

static int iso_reap(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    return status;
}

/* Whether the file's identity, size or modification time differ from st. */
static bool iso_file_changed(const char *path, const struct stat *st)
{
    struct stat now;
    if (stat(path, &now) != 0)
        return true;
    return now.st_ino != st->st_ino || now.st_dev != st->st_dev || now.st_size != st->st_size ||
           now.st_mtim.tv_sec != st->st_mtim.tv_sec || now.st_mtim.tv_nsec != st->st_mtim.tv_nsec;
}

/* The one-line verdict on a child that did not hand over a model. */
static sv_err iso_verdict(const char *epath, int status, const iso_watch *w, const iso_limits *l,
                          bool changed, sv_error *err)
{
    if (changed)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file changed while it was being read (is a job still "
                            "writing it?); try again when it is complete",
                            epath);
    if (w->stalled)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it made no progress for %llu s)",
                            epath, (unsigned long long)w->window_s);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it used more than %llu s of CPU)",
                            epath, (unsigned long long)l->cpu_s);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        return sv_error_set(err, SV_ERR_NOMEM,
                            "%s: the loading process was killed (out of memory?); the memory "
                            "budget is %llu MiB (--memory)",
                            epath, (unsigned long long)(l->budget / MIB));
    if (WIFSIGNALED(status))
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (libhdf5 crashed while reading it: %s)", epath,
                            strsignal(WTERMSIG(status)));
    if (WIFEXITED(status) && WEXITSTATUS(status) == ISO_EXIT_WIRE)
        return sv_error_set(err, SV_ERR_IO,
                            "%s: the loading process could not hand the profile over", epath);
    /* Any other end without an answer: a crash a handler turned into an exit
     * status (a sanitizer's, or libhdf5 calling exit after a failed assertion). */
    return sv_error_set(err, SV_ERR_DAMAGED,
                        "%s: the file is damaged (libhdf5 crashed while reading it: exit status "
                        "%d)",
                        epath, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A load that failed for want of memory inside the child.  A message that
 * names the budget is the budget's (budget.c, wire); any other is an
 * allocation the system refused below the budget (a ulimit -v, the
 * machine's memory), which --memory cannot help: it says so, and names
 * the budget only as what was not reached. */
static void iso_nomem_message(const char *epath, const iso_limits *l, sv_error *err)
{
    if (strstr(err->msg, "budget"))
        return;
    char was[SV_MSG_MAX], lim[32];
    snprintf(was, sizeof was, "%s", err->msg);
    budget_format(lim, sizeof lim, l->budget);
    sv_error_set(err, SV_ERR_NOMEM,
                 "%s: out of memory before the memory budget of %s (--memory) was reached: the "
                 "system refused an allocation (a ulimit -v, or the machine's memory): %s",
                 epath, lim, was);
}

/* A load started and not yet collected (isolate.h).  A failure to start
 * is kept for isolate_collect, so errors come in the order of the loads. */
struct isolate_load {
    char *path;
    char epath[400]; /* a path over 200 characters stays whole */
    isolate_options opt;
    bool in_process;
    iso_limits l;
    struct stat st;
    pid_t pid;
    int prog_fd, data_fd;
    int tail_fd; /* defer_stats: the statistics' pipe, else -1 */
    int shm_fd;  /* the shared columns' channel (iso_shm_channel), else -1 */
    sv_err start_rc;
    sv_error start_err;
};

static sv_err iso_start(isolate_load *ld, sv_error *err)
{
    int prog[2], data[2];
    if (!iso_pipe(prog))
        return sv_error_set(err, SV_ERR_IO, "%s: cannot start the loading process: %s", ld->epath,
                            strerror(errno));
    if (!iso_pipe(data)) {
        close(prog[0]);
        close(prog[1]);
        return sv_error_set(err, SV_ERR_IO, "%s: cannot start the loading process: %s", ld->epath,
                            strerror(errno));
    }
    int tail[2] = {-1, -1};
    bool tail_pipe =
        ld->opt.defer_stats && ld->opt.stats_in_child && (!ld->opt.prepare || ld->opt.light_first);
    if (tail_pipe && !iso_pipe(tail)) {
        int e = errno;
        close(prog[0]);
        close(prog[1]);
        close(data[0]);
        close(data[1]);
        return sv_error_set(err, SV_ERR_IO, "%s: cannot start the loading process: %s", ld->epath,
                            strerror(e));
    }
    /* Columns cross in fewer, larger reads. */
    (void)fcntl(data[1], F_SETPIPE_SZ, 1 << 20);
    int shm[2];
    iso_shm_channel(shm);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(prog[0]);
        close(data[0]);
        if (tail[0] >= 0)
            close(tail[0]);
        if (shm[0] >= 0)
            close(shm[0]);
        iso_child(ld->path, &ld->opt, &ld->l, prog[1], data[1], tail[1], shm[1]);
    }
    int fork_errno = errno;
    close(prog[1]);
    close(data[1]);
    if (tail[1] >= 0)
        close(tail[1]);
    if (shm[1] >= 0)
        close(shm[1]);
    ld->tail_fd = tail[0];
    ld->shm_fd = shm[0];
    if (pid < 0) {
        close(prog[0]);
        close(data[0]);
        return sv_error_set(err, SV_ERR_IO, "%s: cannot start the loading process: %s", ld->epath,
                            strerror(fork_errno));
    }
    ld->pid = pid;
    ld->prog_fd = prog[0];
    ld->data_fd = data[0];
    return SV_OK;
}

/* The statistics still to come from a deferred load's child (isolate.h). */
struct isolate_tail {
    bool local;         /* no child: computed here (stats_local.h) */
    pthread_mutex_t mu; /* guards pid: the receiver reaps, isolate_tail_kill kills */
    pid_t pid;
    int prog_fd, tail_fd;
    iso_limits l;
    size_t nregions, nranks; /* of the model they belong to */
    char epath[400];
};

bool isolate_tail_local(const isolate_tail *t)
{
    return t && t->local;
}

void isolate_tail_kill(isolate_tail *t)
{
    pthread_mutex_lock(&t->mu);
    if (t->pid > 0) /* not reaped yet: still this child (or its zombie) */
        kill(t->pid, SIGKILL);
    pthread_mutex_unlock(&t->mu);
}

/* Reaps the child; its pid stays valid for isolate_tail_kill until then
 * (waitid WNOWAIT: waits for the end without reaping). */
static int iso_tail_reap(isolate_tail *t)
{
    siginfo_t si;
    while (waitid(P_PID, (id_t)t->pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&t->mu);
    int status = iso_reap(t->pid);
    t->pid = 0;
    pthread_mutex_unlock(&t->mu);
    return status;
}

void isolate_tail_free(isolate_tail *t)
{
    if (!t)
        return;
    if (t->pid > 0) {
        kill(t->pid, SIGKILL);
        (void)iso_reap(t->pid);
    }
    if (t->prog_fd >= 0)
        close(t->prog_fd);
    if (t->tail_fd >= 0)
        close(t->tail_fd);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

sv_err isolate_tail_recv(isolate_tail *t, wire_stats **out, sv_error *err)
{
    sv_error_clear(err);
    *out = NULL;
    if (t->local)
        return sv_error_set(err, SV_ERR_USAGE, "%s: no statistics to receive", t->epath);
    /* No progress callback: this may run on another thread than the load's. */
    iso_watch w = {.prog_fd = t->prog_fd,
                   .data_fd = t->tail_fd,
                   .shm_fd = -1,
                   .stall_s = t->l.stall_s,
                   .deadline = now_ms() + (int64_t)t->l.stall_s * 1000,
                   .window_s = t->l.stall_s};
    wire_src src = {iso_read, &w, NULL};
    sv_error werr;
    sv_error_clear(&werr);
    wire_status ws = wire_recv_stats(&src, t->nregions, t->nranks, t->l.budget, out, &werr);
    if (w.stalled || ws == WIRE_BUDGET)
        kill(t->pid, SIGKILL);
    /* Closed before the reaping: a child still writing then fails, not blocks. */
    close(t->tail_fd);
    if (w.prog_fd >= 0)
        close(w.prog_fd);
    t->tail_fd = t->prog_fd = -1;
    int status = iso_tail_reap(t);
    bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    sv_err e = SV_OK;
    if (ws != WIRE_PROFILE || !exited_ok) {
        wire_stats_free(*out);
        *out = NULL;
        if (ws == WIRE_ERROR || ws == WIRE_BUDGET || (ws == WIRE_BROKEN && exited_ok && !w.stalled))
            e = sv_error_set(err, werr.code ? werr.code : SV_ERR_DAMAGED, "%s: %s", t->epath,
                             werr.msg);
        else
            e = iso_verdict(t->epath, status, &w, &t->l, false, err);
    }
    return e;
}

/* A deferred load's model is in: the child goes on with the statistics.
 * The tail takes over the child; without a place for it (isolate_options
 * tail) the statistics are received and installed here and now. */
static sv_err iso_hand_tail(isolate_load *ld, iso_watch *w, profile **out, sv_error *err)
{
    close(ld->data_fd);
    ld->data_fd = -1;
    /* Every read of the file is done: a change now is a change during the load. */
    if (iso_file_changed(ld->path, &ld->st))
        profile_warn(*out,
                     "%s: the file changed while it was being read (is a job still writing "
                     "it?): what is shown may mix its old and new contents",
                     ld->epath);
    isolate_tail *t = calloc(1, sizeof *t);
    if (!t) {
        profile_free(*out);
        *out = NULL;
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", ld->epath);
    }
    pthread_mutex_init(&t->mu, NULL);
    t->pid = ld->pid;
    t->prog_fd = w->prog_fd;
    t->tail_fd = ld->tail_fd;
    t->l = ld->l;
    t->nregions = (*out)->nregions;
    t->nranks = (*out)->nranks;
    snprintf(t->epath, sizeof t->epath, "%s", ld->epath);
    ld->pid = 0;
    ld->prog_fd = ld->tail_fd = -1;
    if (ld->opt.tail) {
        *ld->opt.tail = t;
        return SV_OK;
    }
    wire_stats *st = NULL;
    sv_err e = isolate_tail_recv(t, &st, err);
    isolate_tail_free(t);
    if (!e && !wire_stats_install(*out, st))
        e = sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", ld->epath);
    wire_stats_free(st);
    if (e) {
        profile_free(*out);
        *out = NULL;
    }
    return e;
}

/* A deferred load's model came without statistics, to be computed here:
 * handed over as a local tail, or computed and installed now. */
static sv_err iso_local_tail(isolate_load *ld, profile **out, sv_error *err)
{
    sv_err e = SV_ERR_NOMEM;
    if (ld->opt.tail) {
        isolate_tail *t = calloc(1, sizeof *t);
        if (t) {
            t->local = true;
            pthread_mutex_init(&t->mu, NULL);
            t->prog_fd = t->tail_fd = -1;
            snprintf(t->epath, sizeof t->epath, "%s", ld->epath);
            *ld->opt.tail = t;
            return SV_OK;
        }
    } else {
        stats_local *c = stats_local_new(*out);
        wire_stats *st = NULL;
        e = c ? stats_local_run(c, &st, err) : SV_ERR_NOMEM;
        bool ok = !e && wire_stats_install(*out, st);
        wire_stats_free(st);
        if (ok)
            return SV_OK;
        if (!e)
            e = SV_ERR_NOMEM;
    }
    if (e == SV_ERR_NOMEM)
        sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", ld->epath);
    profile_free(*out);
    *out = NULL;
    return e;
}

/* Receives the started child's answer.  The stall deadline starts now: a
 * child that finished while another load was collected waits on a full
 * pipe, without using CPU. */
static sv_err iso_collect(isolate_load *ld, profile **out, sv_error *err)
{
    const char *path = ld->path, *epath = ld->epath;
    const iso_limits *l = &ld->l;
    const isolate_options *opt = &ld->opt;
    iso_watch w = {.prog_fd = ld->prog_fd,
                   .data_fd = ld->data_fd,
                   .shm_fd = ld->shm_fd,
                   .stall_s = l->stall_s,
                   .deadline = now_ms() + (int64_t)l->stall_s * 1000,
                   .window_s = l->stall_s,
                   .opt = opt};
    wire_src src = {iso_read, &w, iso_recv_fd};
    sv_error werr;
    sv_error_clear(&werr);
    wire_status ws = wire_recv_section(&src, l->budget, opt->section, out, &werr);
    if (ld->shm_fd >= 0) /* received, or never coming */
        close(ld->shm_fd);
    ld->shm_fd = -1;
    if (ws == WIRE_PROFILE && ld->tail_fd >= 0) /* the statistics come next */
        return iso_hand_tail(ld, &w, out, err);
    if (w.stalled || w.cancelled || ws == WIRE_BUDGET)
        kill(ld->pid, SIGKILL);
    close(ld->data_fd);
    if (w.prog_fd >= 0)
        close(w.prog_fd);
    ld->prog_fd = ld->data_fd = -1;
    int status = iso_reap(ld->pid);
    ld->pid = 0;
    bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ws == WIRE_PROFILE && exited_ok) {
        if (iso_file_changed(path, &ld->st))
            profile_warn(*out,
                         "%s: the file changed while it was being read (is a job still writing "
                         "it?): what is shown may mix its old and new contents",
                         epath);
        return opt->defer_stats && !opt->prepare ? iso_local_tail(ld, out, err) : SV_OK;
    }
    profile_free(*out);
    *out = NULL;
    if (w.cancelled)
        return sv_error_set(err, SV_ERR_USAGE, "%s: cancelled", epath);
    if (ws == WIRE_ERROR || ws == WIRE_BUDGET) {
        sv_error_set(err, werr.code, "%s", werr.msg);
        if (ws == WIRE_BUDGET)
            sv_error_set(err, SV_ERR_NOMEM, "%s: %s (--memory)", epath, werr.msg);
        else if (err->code == SV_ERR_NOMEM)
            iso_nomem_message(epath, l, err);
        return err->code;
    }
    return iso_verdict(epath, status, &w, l, iso_file_changed(path, &ld->st), err);
}

isolate_load *isolate_start(const char *path, const isolate_options *opt)
{
    isolate_load *ld = calloc(1, sizeof *ld);
    if (!ld)
        return NULL;
    ld->prog_fd = ld->data_fd = ld->tail_fd = ld->shm_fd = -1;
    sv_error_clear(&ld->start_err);
    if (opt)
        ld->opt = *opt;
    /* The options' paths are the caller's: only the pointer is copied. */
    ld->path = path ? strdup(path) : NULL;
    if (!path || !ld->path) {
        ld->start_rc =
            path ? sv_error_set(&ld->start_err, SV_ERR_NOMEM, "out of memory")
                 : sv_error_set(&ld->start_err, SV_ERR_USAGE, "profile_load_isolated: no path");
        return ld;
    }
    uint64_t budget = isolate_budget_or_default(ld->opt.budget);
    ld->opt.budget = budget;
    if (isolate_disabled()) {
        ld->in_process = true; /* loaded at isolate_collect */
        return ld;
    }
    text_escape_buf(ld->epath, sizeof ld->epath, path);
    /* Missing or special files: the child's load gives the message. */
    (void)stat(path, &ld->st);
    uint64_t stored = iso_stored_bytes(&ld->st);
    /* A file set: the limits follow what all its files store. */
    for (size_t i = 1; ld->opt.paths && i < ld->opt.npaths; i++) {
        struct stat si;
        uint64_t b = stat(ld->opt.paths[i], &si) == 0 ? iso_stored_bytes(&si) : 0;
        stored = b > UINT64_MAX - stored ? UINT64_MAX : stored + b;
    }
    ld->l = iso_limits_for(stored, budget);
    ld->start_rc = iso_start(ld, &ld->start_err);
    return ld;
}

sv_err isolate_collect(isolate_load *ld, profile **out, sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!ld || !out) {
        isolate_cancel(ld);
        return sv_error_set(err, ld ? SV_ERR_USAGE : SV_ERR_NOMEM,
                            ld ? "isolate_collect: nowhere to put the profile" : "out of memory");
    }
    if (ld->opt.tail)
        *ld->opt.tail = NULL;
    sv_err rc;
    if (ld->start_rc) {
        *err = ld->start_err;
        rc = ld->start_rc;
    } else if (ld->in_process) {
        load_options lo = {.progress = ld->opt.progress, .progress_ctx = ld->opt.progress_ctx};
        load_budget b = {.limit = ld->opt.budget};
        rc = iso_load(ld->path, &ld->opt, &b, &lo, LOAD_FINISH_ALL, false, out, err);
    } else {
        rc = iso_collect(ld, out, err);
    }
    isolate_cancel(ld);
    return rc;
}

void isolate_cancel(isolate_load *ld)
{
    if (!ld)
        return;
    if (ld->pid > 0) {
        kill(ld->pid, SIGKILL);
        (void)iso_reap(ld->pid);
    }
    if (ld->prog_fd >= 0)
        close(ld->prog_fd);
    if (ld->data_fd >= 0)
        close(ld->data_fd);
    if (ld->tail_fd >= 0)
        close(ld->tail_fd);
    if (ld->shm_fd >= 0)
        close(ld->shm_fd);
    free(ld->path);
    free(ld);
}

void isolate_set_progress(isolate_load *ld, void (*progress)(void *, uint64_t, uint64_t), void *ctx)
{
    if (ld) {
        ld->opt.progress = progress;
        ld->opt.progress_ctx = ctx;
    }
}

sv_err profile_load_isolated(const char *path, const isolate_options *opt, profile **out,
                             sv_error *err)
{
    if (!path || !out) {
        sv_error_clear(err);
        if (out)
            *out = NULL;
        return sv_error_set(err, SV_ERR_USAGE, "profile_load_isolated: no path");
    }
    return isolate_collect(isolate_start(path, opt), out, err);
}
