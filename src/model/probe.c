/* probe: contains libhdf5's crashes and hangs on malformed files.
 *
 * libhdf5 1.10.8 segfaults on about 0.4% of single-byte corruptions (mostly
 * in the global heap behind variable-length strings, some in attribute and
 * B-tree decoding) and loops forever on a few.  The viewer cannot catch
 * that in-process, so a forked child first runs the loader's own walk with
 * the probe flag (everything risky, but no whole numeric column, so it costs
 * little against the load) under resource limits, and the parent waits with
 * a deadline.  Only a child that finished lets the real load start. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "h5util.h"
#include "loader.h"
#include "text.h"

/* ASan reserves terabytes of address space up front: RLIMIT_AS would
 * make every later mapping fail, so a sanitized build goes without it. */
#if defined(__SANITIZE_ADDRESS__)
#define PROBE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROBE_ASAN 1
#endif
#endif
#ifndef PROBE_ASAN
#define PROBE_ASAN 0
#endif

#define MIB ((uint64_t)1 << 20)
/* The child's address space: 4x the file plus room for libhdf5 itself,
 * at most 4 GiB.  The walk keeps only strings, which the file must hold. */
#define PROBE_AS_BASE (256 * MIB)
#define PROBE_AS_MAX (4096 * MIB)
/* The child is killed after this long without progress (the loader
 * reports after each region and table): 10 s, plus 1 s per 64 MiB of file
 * for one huge string dataset.  A file of many regions may take longer as
 * a whole, so the deadline moves with progress instead of being total. */
#define PROBE_STALL_BASE 10
#define PROBE_BYTES_PER_S (64 * MIB)
/* A busy loop is a hang whoever watches: the CPU limit backs the watchdog
 * up generously (60 s plus 1 s per MiB). */
#define PROBE_CPU_BASE 60
#define PROBE_CPU_BYTES_PER_S MIB
/* The child reports progress at most this often. */
#define PROBE_TICK_MS 100

/* Child exit statuses. */
#define PROBE_EXIT_OK 0
#define PROBE_EXIT_NOMEM 3

typedef struct probe_limits {
    uint64_t as_bytes;
    unsigned stall_s; /* without progress */
    rlim_t cpu_s;
} probe_limits;

static probe_limits probe_limits_for(uint64_t size)
{
    probe_limits l;
    uint64_t as = size <= (PROBE_AS_MAX - PROBE_AS_BASE) / 4 ? 4 * size + PROBE_AS_BASE : 0;
    l.as_bytes = as && as < PROBE_AS_MAX ? as : PROBE_AS_MAX;
    l.stall_s = PROBE_STALL_BASE + (unsigned)(size / PROBE_BYTES_PER_S);
    l.cpu_s = PROBE_CPU_BASE + (rlim_t)(size / PROBE_CPU_BYTES_PER_S);
    return l;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child's side of the progress pipe. */
typedef struct probe_ticker {
    int fd;
    int64_t last_ms;
} probe_ticker;

static void probe_tick(void *ctx, uint64_t done, uint64_t total)
{
    (void)done;
    (void)total;
    probe_ticker *t = ctx;
    int64_t now = now_ms();
    if (now - t->last_ms < PROBE_TICK_MS)
        return;
    t->last_ms = now;
    /* A full pipe means the parent has not read yet: it saw progress. */
    (void)!write(t->fd, "", 1);
}

static void probe_set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {soft, hard};
    /* A limit that cannot be set only weakens containment: carry on. */
    (void)setrlimit(resource, &rl);
}

/* Runs in the child: limits first, then the walk, ticking into fd (held
 * open until exit, so the parent also sees the end).  Never returns. */
static void probe_child(const char *path, const probe_limits *l, int fd)
{
    /* No core file, not even through a core_pattern pipe (which ignores
     * RLIMIT_CORE); and no orphan child spinning after the parent died. */
    probe_set_limit(RLIMIT_CORE, 0, 0);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    probe_set_limit(RLIMIT_CPU, l->cpu_s, l->cpu_s + 1);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    if (!PROBE_ASAN)
        probe_set_limit(RLIMIT_AS, l->as_bytes, l->as_bytes);
    /* Silent: the parent gives the one-line verdict (a sanitizer's report
     * included; SCOPEVIEW_NO_PROBE=1 shows it in-process). */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    probe_ticker ticker = {fd, now_ms()};
    load_options opt = {.progress = probe_tick, .progress_ctx = &ticker};
    sv_error err;
    sv_err e = loader_probe_walk(path, &opt, &err);
    /* _exit: the parent's stdio buffers and atexit handlers are not ours. */
    _exit(e == SV_ERR_NOMEM ? PROBE_EXIT_NOMEM : PROBE_EXIT_OK);
}

/* Reads the child's ticks until it closes its end of the pipe (it exited,
 * however it died): true; or until it has made no progress for stall_s
 * seconds: false. */
static bool probe_watch(int fd, unsigned stall_s)
{
    int64_t deadline = now_ms() + (int64_t)stall_s * 1000;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return true; /* cannot watch: let waitpid block */
        if (rc == 0)
            continue;
        char buf[64];
        ssize_t k = read(fd, buf, sizeof buf);
        if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
            return true;
        if (k > 0)
            deadline = now_ms() + (int64_t)stall_s * 1000;
    }
}

/* A pipe whose ends are above stderr: with stdout closed, pipe2 would hand
 * out fd 1, which the child then replaces by /dev/null. */
static bool probe_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
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

static int probe_reap(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0; /* not our child any more: nothing to judge */
    return status;
}

static sv_err probe_verdict(const char *path, int status, bool in_time, const probe_limits *l,
                            sv_error *err)
{
    char epath[240];
    text_escape_buf(epath, sizeof epath, path);
    if (!in_time)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it made no progress for %u s)", epath,
                            l->stall_s);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it used more than %llu s of CPU)",
                            epath, (unsigned long long)l->cpu_s);
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_EXIT_OK)
        return SV_OK;
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_EXIT_NOMEM)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it needs more than %llu MiB)", epath,
                            (unsigned long long)(l->as_bytes / MIB));
    return sv_error_set(err, SV_ERR_DAMAGED,
                        "%s: the file is damaged (libhdf5 crashed while reading it)", epath);
}

sv_err profile_probe(const char *path, sv_error *err)
{
    sv_error_clear(err);
    struct stat st;
    /* Missing, unreadable or special files: the load gives the message. */
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return SV_OK;
    probe_limits l = probe_limits_for((uint64_t)st.st_size);
    /* Initialising libhdf5 costs ~15 ms of CPU: done once here, the child
     * inherits it and the load after the probe does not pay it again. */
    h5u_setup();
    int fds[2];
    if (!probe_pipe(fds))
        return SV_OK; /* out of descriptors: load unprotected rather than refuse */
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        probe_child(path, &l, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return SV_OK; /* cannot fork: the same choice as above */
    }
    bool in_time = probe_watch(fds[0], l.stall_s);
    close(fds[0]);
    if (!in_time)
        kill(pid, SIGKILL);
    return probe_verdict(path, probe_reap(pid), in_time, &l, err);
}
