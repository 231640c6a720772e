/* runstat: runs a command and reports what it cost, for `make bench`.
 *
 *   runstat CMD [ARGS...]
 *
 * The command's stdin, stdout and stderr are this program's (the caller
 * redirects them).  When it ends, one line goes to the file named by
 * $RUNSTAT_OUT (or to stderr): wall seconds, user and system CPU seconds
 * (microsecond resolution, from wait4), peak resident set in KiB and the
 * exit status.  runstat exits with the command's status. */
#include <errno.h>
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runstat CMD [ARGS...]\n");
        return 2;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
        _exit(127);
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
    fprintf(out, "%.6f %.6f %.6f %ld %d\n", wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime),
            ru.ru_maxrss, code);
    if (out != stderr)
        fclose(out);
    return code;
}
