/* ooc_open_time: times ooc_open (ooc.h step 1) on one file, for the out-of-core
 * figures: `tests/ooc_open_time FILE [BUDGET] [load]` prints the wall
 * time, the CPU time and the peak RSS of this process and of the loading
 * child (SCOPEVIEW_IN_PROCESS=1: all in this process), and what the
 * overview map and the seek index hold.  With `load`, the streamed load
 * alone (LOAD_STREAM_FORCE, no map), for comparison; with `tail`, as the
 * viewer opens it: the time to the skeleton and map (its first frame),
 * then to the statistics that follow; with `parts` (or `noparts`), as the
 * viewer's job does it (ooc_open_job.h): the skeleton from the index, then
 * the time each partial overview arrives (none with `noparts`: the same
 * job without them, for comparison) and the whole overview. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "isolate/isolate.h"
#include "load/loader.h"
#include "ooc/ooc.h"
#include "ooc/ooc_open_job.h"
#include "isolate/wire_stats.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double secs(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void times(const char *what, double wall)
{
    struct rusage s, c;
    getrusage(RUSAGE_SELF, &s);
    getrusage(RUSAGE_CHILDREN, &c);
    printf("%s: wall %.3f s; this process user %.3f s sys %.3f s peak %ld MiB; loading child "
           "user %.3f s sys %.3f s peak %ld MiB\n",
           what, wall, secs(s.ru_utime), secs(s.ru_stime), s.ru_maxrss / 1024, secs(c.ru_utime),
           secs(c.ru_stime), c.ru_maxrss / 1024);
}

/* The viewer's way: the index first, then the job, polled as the UI's
 * loop polls it (every 10 ms). */
static int time_job(const char *path, uint64_t budget, bool parts)
{
    double t0 = now();
    isolate_options io = {.budget = budget, .index_only = true, .stats_only = true};
    profile *skel = NULL;
    sv_error err;
    if (profile_load_isolated(path, &io, &skel, &err) != SV_OK) {
        fprintf(stderr, "skeleton: %s\n", err.msg);
        return 1;
    }
    printf("skeleton (first frame): %.3f s\n", now() - t0);
    isolate_options jo = {.budget = budget};
    ooc_open_job *j = ooc_open_job_start(path, &jo, NULL, parts ? skel : NULL, false);
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (!ooc_open_job_done(j)) {
        ooc_part *p = ooc_open_job_part(j);
        if (p)
            printf("part: %u of %u ranks, %llu of %llu calls, %zu lanes: %.3f s\n", p->ranks_done,
                   p->nranks, (unsigned long long)p->calls_done, (unsigned long long)p->calls_total,
                   p->map.nlanes, now() - t0);
        ooc_part_free(p);
        nanosleep(&ts, NULL);
    }
    ooc_file *f = NULL;
    isolate_tail *tail = NULL;
    sv_err e = ooc_open_job_take(j, &f, &tail, &err);
    times(parts ? "whole overview (with parts)" : "whole overview (no parts)", now() - t0);
    isolate_tail_free(tail);
    ooc_file_free(f);
    profile_free(skel);
    return e != SV_OK;
}

int main(int argc, char **argv)
{
    uint64_t budget = (uint64_t)1 << 30;
    if (argc < 2 || (argc > 2 && !isolate_parse_size(argv[2], &budget))) {
        fprintf(stderr, "usage: ooc_open_time FILE [BUDGET] [load]\n");
        return 2;
    }
    if (argc > 3 && (strcmp(argv[3], "parts") == 0 || strcmp(argv[3], "noparts") == 0))
        return time_job(argv[1], budget, strcmp(argv[3], "parts") == 0);
    isolate_options io = {.budget = budget};
    sv_error err;
    double t0 = now();
    if (argc > 3 && strcmp(argv[3], "load") == 0) {
        io.stream = LOAD_STREAM_FORCE;
        profile *p = NULL;
        sv_err e = profile_load_isolated(argv[1], &io, &p, &err);
        times("streamed load", now() - t0);
        profile_free(p);
        return e != SV_OK;
    }
    ooc_file *f = NULL;
    isolate_tail *tail = NULL;
    if (argc > 3 && strcmp(argv[3], "tail") == 0)
        io.tail = &tail;
    sv_err e = ooc_open(argv[1], &io, &f, &err);
    times(tail ? "ooc_open, to the map" : "ooc_open", now() - t0);
    if (e) {
        fprintf(stderr, "ooc_open: %s\n", err.msg);
        return 1;
    }
    if (tail) {
        wire_stats *st = NULL;
        e = isolate_tail_recv(tail, &st, &err);
        times("ooc_open, to the statistics", now() - t0);
        if (e)
            fprintf(stderr, "statistics: %s\n", err.msg);
        wire_stats_free(st);
        isolate_tail_free(tail);
    }
    size_t cells = 0, ncp = 0, nopen = 0, nw = 0;
    for (size_t l = 0; l < f->map.nlanes; l++) {
        uint32_t d = f->map.lanes[l].ndepth;
        cells += (d < OOC_MAP_DEPTHS ? d : OOC_MAP_DEPTHS) * ooc_map_row_cells(&f->map);
    }
    for (size_t k = 0; k < f->seek.nranks; k++) {
        ncp += f->seek.ranks[k].ncp;
        nopen += f->seek.ranks[k].nopen;
        nw += !f->seek.ranks[k].windowable;
    }
    printf("map: %llu calls on %zu lanes, %zu cells (%.1f MiB), %zu buckets of 2^%u ns; seek: %zu "
           "rows, %zu checkpoints holding %zu open calls; %zu of %zu ranks not windowable\n",
           (unsigned long long)f->map.ncalls, f->map.nlanes, cells, (double)cells * 32 / 1048576,
           f->map.nb, f->map.shift, f->seek.nrows, ncp, nopen, nw, f->seek.nranks);
    ooc_file_free(f);
    return 0;
}
