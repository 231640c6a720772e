/* runstat: runs a command and reports what it cost, for `make bench`.
 *
 *   runstat CMD [ARGS...]
 *
 * The command's stdin, stdout and stderr are this program's (the caller
 * redirects them).  When it ends, one line goes to the file named by
 * $RUNSTAT_OUT (or to stderr): wall seconds, user and system CPU seconds
 * (microsecond resolution, from wait4), peak resident set in KiB and the
 * exit status.  runstat exits with the command's status.
 *
 * With RUNSTAT_FIRST_BYTE=1 the command's stdout is a pipe that runstat
 * copies to its own, and the line gets a sixth field: seconds from the
 * start to the first byte the command wrote (-1: none), e.g. the time to
 * the viewer's first screen. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Copies fd to stdout until EOF; returns the time of the first byte
 * (seconds since t0) or -1. */
static double pump(int fd, double t0)
{
    char buf[65536];
    double first = -1;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (first < 0)
            first = now_s() - t0;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break; /* stdout gone: keep draining, so the command is not blocked */
            off += w;
        }
    }
    return first;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runstat CMD [ARGS...]\n");
        return 2;
    }
    const char *fb = getenv("RUNSTAT_FIRST_BYTE");
    bool first_byte = fb && *fb && strcmp(fb, "0") != 0;
    int pfd[2] = {-1, -1};
    if (first_byte && pipe(pfd) != 0) {
        perror("runstat: pipe");
        return 127;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 127;
    }
    if (pid == 0) {
        if (first_byte) {
            dup2(pfd[1], STDOUT_FILENO);
            close(pfd[0]);
            close(pfd[1]);
        }
        execvp(argv[1], argv + 1);
        fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    double first = -1;
    if (first_byte) {
        close(pfd[1]);
        first = pump(pfd[0], t0);
        close(pfd[0]);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("runstat: wait4");
            return 127;
        }
    double wall = now_s() - t0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const char *path = getenv("RUNSTAT_OUT");
    FILE *out = path && *path ? fopen(path, "w") : stderr;
    if (!out) {
        perror("runstat: RUNSTAT_OUT");
        return 127;
    }
    fprintf(out, "%.6f %.6f %.6f %ld %d", wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime), ru.ru_maxrss,
            code);
    if (first_byte)
        fprintf(out, " %.6f", first);
    fputc('\n', out);
    if (out != stderr)
        fclose(out);
    return code;
}
