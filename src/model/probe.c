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
/* Deadline: 10 s, plus 1 s per 64 MiB of file for the string datasets. */
#define PROBE_TIME_BASE 10
#define PROBE_BYTES_PER_S (64 * MIB)

/* Child exit statuses. */
#define PROBE_EXIT_OK 0
#define PROBE_EXIT_NOMEM 3

typedef struct probe_limits {
    uint64_t as_bytes;
    unsigned seconds;
} probe_limits;

static probe_limits probe_limits_for(uint64_t size)
{
    probe_limits l;
    uint64_t as = size <= (PROBE_AS_MAX - PROBE_AS_BASE) / 4 ? 4 * size + PROBE_AS_BASE : 0;
    l.as_bytes = as && as < PROBE_AS_MAX ? as : PROBE_AS_MAX;
    l.seconds = PROBE_TIME_BASE + (unsigned)(size / PROBE_BYTES_PER_S);
    return l;
}

static void probe_set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {soft, hard};
    /* A limit that cannot be set only weakens containment: carry on. */
    (void)setrlimit(resource, &rl);
}

/* Runs in the child: limits first, then the walk.  Never returns. */
static void probe_child(const char *path, const probe_limits *l, int keep_fd)
{
    (void)keep_fd; /* held open until exit: the parent sees the pipe close */
    /* No core file, not even through a core_pattern pipe (which ignores
     * RLIMIT_CORE); and no orphan child spinning after the parent died. */
    probe_set_limit(RLIMIT_CORE, 0, 0);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    probe_set_limit(RLIMIT_CPU, l->seconds + 1, l->seconds + 2);
    if (!PROBE_ASAN)
        probe_set_limit(RLIMIT_AS, l->as_bytes, l->as_bytes);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    sv_error err;
    sv_err e = loader_probe_walk(path, &err);
    /* _exit: the parent's stdio buffers and atexit handlers are not ours. */
    _exit(e == SV_ERR_NOMEM ? PROBE_EXIT_NOMEM : PROBE_EXIT_OK);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until the child closes its end of the pipe (it exited, however it
 * died) or the deadline passes.  true when it finished in time. */
static bool probe_wait_pipe(int fd, unsigned seconds)
{
    int64_t deadline = now_ms() + (int64_t)seconds * 1000;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR)
            return true; /* cannot watch: let waitpid block */
    }
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
    bool cpu = WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU;
    if (!in_time || cpu)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: the file is damaged (reading it did not finish in %u s)", epath,
                            l->seconds);
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
    if (pipe2(fds, O_CLOEXEC) != 0)
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
    bool in_time = probe_wait_pipe(fds[0], l.seconds);
    close(fds[0]);
    if (!in_time)
        kill(pid, SIGKILL);
    return probe_verdict(path, probe_reap(pid), in_time, &l, err);
}
