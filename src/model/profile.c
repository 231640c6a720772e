#include "profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "callpaths.h"
#include "slowcalls.h"
#include "tbins.h"
#include "par.h"
#include "warncap.h"
#include "util/grow.h"

const char *const summary_key_names[SUM_COUNT] = {
    [SUM_NUM_CALLS] = "num_calls",
    [SUM_TOTAL] = "total_ns",
    [SUM_MIN] = "min_ns",
    [SUM_MAX] = "max_ns",
    [SUM_MEAN] = "mean_ns",
    [SUM_STD] = "std_ns",
    [SUM_FIRST] = "first_ns",
    [SUM_LAST] = "last_ns",
    [SUM_FIRST_START] = "first_start_ns",
    [SUM_LAST_END] = "last_end_ns",
    [SUM_P50] = "p50_ns",
    [SUM_P95] = "p95_ns",
    [SUM_P99] = "p99_ns",
    [SUM_EXCLUSIVE_TOTAL] = "exclusive_total_ns",
    [SUM_GPU_TOTAL] = "gpu_total_ns",
    [SUM_AWAIT_TOTAL] = "await_total_ns",
};

profile *profile_new(const char *path)
{
    profile *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->path = strdup(path ? path : "");
    p->paths = calloc(1, sizeof *p->paths);
    if (p->paths)
        p->paths[0] = strdup(p->path ? p->path : "");
    if (!p->path || !p->paths || !p->paths[0]) {
        if (p->paths)
            free(p->paths[0]);
        free(p->paths);
        free(p->path);
        free(p);
        return NULL;
    }
    p->npaths = 1;
    p->schema = 1;
    p->layout = LAYOUT_GROUPS;
    p->legacy = true;
    return p;
}

rank_data *profile_add_rank(profile *p, int rank)
{
    if (!sv_grow((void **)&p->ranks, &p->ranks_cap, p->nranks + 1, sizeof *p->ranks, 8))
        return NULL;
    rank_data *rk = &p->ranks[p->nranks++];
    memset(rk, 0, sizeof *rk);
    rk->rank = rank;
    rk->owner = p;
    return rk;
}

region *rank_add_region(rank_data *rk, const char *name)
{
    if (!sv_grow((void **)&rk->regions, &rk->regions_cap, rk->nregions + 1, sizeof *rk->regions, 8))
        return NULL;
    region *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->name = strdup(name);
    if (!r->name) {
        free(r);
        return NULL;
    }
    r->rank = rk->rank;
    r->owner = rk;
    rk->regions[rk->nregions++] = r;
    return r;
}

void profile_warn(profile *p, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* A worker task's line waits in its task's list (par.h). */
    if (par_warn_capture(line))
        return;
    /* At most WARN_CAP_PER_KIND of a kind, then one counting line. */
    if (!warn_cap_admit(p, line, sizeof line))
        return;
    if (p->nwarnings == p->nwarnings_cap) {
        size_t cap = p->nwarnings_cap ? p->nwarnings_cap * 2 : 8;
        char **w = realloc(p->warnings, cap * sizeof *w);
        if (!w)
            return;
        p->warnings = w;
        p->nwarnings_cap = cap;
    }
    char *copy = strdup(line);
    if (copy)
        p->warnings[p->nwarnings++] = copy;
}

static void free_strv(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void region_clear(region *r)
{
    if (!r->cols_shared) { /* else the profile's mapping holds them */
        free(r->start_ns);
        free(r->end_ns);
        free(r->call_ids);
        free(r->parent_ids);
        free(r->thread_ids);
        free(r->task_ids);
        free(r->await_ns);
        free(r->gpu_ns);
    }
    free_strv(r->event_meta, r->n);
    free(r->source_file);
    free(r->source_text);
    free_strv(r->tags, r->ntags);
    free(r->own_excl_ns);
    free(r->stream_threads);
    memset(r, 0, sizeof *r);
}

void region_free(region *r)
{
    if (!r)
        return;
    free(r->name);
    region_clear(r);
    free(r);
}

void rank_calls_free(rank_calls *c)
{
    if (!c)
        return;
    free(c->parent);
    free(c->child);
    free(c->lane);
    free(c);
}

static void thread_table_free(thread_table *t)
{
    free_strv(t->name, t->n);
    free(t->ident);
    free(t->native_id);
    free(t->daemon);
    free(t->start_ns);
    free(t->end_ns);
    free(t->cpu_ns);
}

static void task_table_free(task_table *t)
{
    free_strv(t->name, t->n);
    free(t->thread);
    free_strv(t->kind, t->n);
    free_strv(t->coro_name, t->n);
    free(t->created_ns);
    free(t->done_ns);
    free(t->steps);
    free(t->running_ns);
    free(t->suspended_ns);
}

void line_profile_clear(line_profile *lp)
{
    free(lp->region);
    free(lp->filename);
    free(lp->function);
    free(lp->source);
    free(lp->lineno);
    free(lp->hits);
    free(lp->times);
    memset(lp, 0, sizeof *lp);
}

void perf_record_clear(perf_record *pr)
{
    free(pr->kind);
    free(pr->region);
    free_strv(pr->names, pr->n);
    free(pr->values);
    memset(pr, 0, sizeof *pr);
}

static void rank_free_data(rank_data *rk)
{
    for (size_t i = 0; i < rk->nregions; i++)
        region_free(rk->regions[i]);
    free(rk->regions);
    thread_table_free(&rk->threads);
    task_table_free(&rk->tasks);
    rank_calls_free(rk->calls);
    for (size_t i = 0; i < rk->nlines; i++)
        line_profile_clear(&rk->lines[i]);
    free(rk->lines);
    for (size_t i = 0; i < rk->nperf; i++)
        perf_record_clear(&rk->perf[i]);
    free(rk->perf);
}

void profile_free(profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nranks; i++)
        rank_free_data(&p->ranks[i]);
    free(p->ranks);
    free(p->regions);
    for (size_t i = 0; i < p->nmeta; i++) {
        free(p->meta[i].key);
        free(p->meta[i].text);
    }
    free(p->meta);
    free_strv(p->warnings, p->nwarnings);
    warn_cap_free(p);
    free_strv(p->path_formats, p->npaths);
    free_strv(p->paths, p->npaths);
    call_paths_free(p->cpaths);
    slow_calls_free(p->slowest);
    time_bins_free(p->tbins);
    free(p->path);
    free(p->run_name);
    /* After the regions: their columns pointed into it. */
    if (p->shared_cols)
        munmap(p->shared_cols, p->shared_len);
    free(p);
}

bool profile_set_run_name(profile *p, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *s = strndup(dir, n);
    if (!s)
        return false;
    free(p->run_name);
    p->run_name = s;
    return true;
}

rank_data *profile_rank(const profile *p, int rank)
{
    size_t lo = 0, hi = p->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nranks && p->ranks[lo].rank == rank ? &p->ranks[lo] : NULL;
}

region *rank_region(const rank_data *rk, const char *name)
{
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(rk->regions[mid]->name, name);
        if (c == 0)
            return rk->regions[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t rank_call_region_at(const rank_data *rk, size_t g, size_t *idx)
{
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 + rk->regions[mid]->n <= g)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (idx)
        *idx = lo < rk->nregions ? g - rk->regions[lo]->gidx0 : 0;
    return lo;
}

region *rank_call_region(const rank_data *rk, int64_t gidx, size_t *idx)
{
    if (gidx < 0 || (size_t)gidx >= rk->ncalls)
        return NULL;
    size_t g = (size_t)gidx, lo = 0, hi = rk->nregions;
    /* Last region whose gidx0 <= g and that holds calls. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 <= g)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0) {
        region *r = rk->regions[lo - 1];
        if (g < r->gidx0 + r->n) {
            if (idx)
                *idx = g - r->gidx0;
            return r;
        }
        lo--;
    }
    return NULL;
}

const char *profile_meta(const profile *p, const char *key)
{
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0)
            return p->meta[i].text;
    return NULL;
}

const char *rank_thread_name(const rank_data *rk, int64_t row, char *buf, size_t len)
{
    if (rk->has_threads && rk->threads.name && row >= 0 && (size_t)row < rk->threads.n)
        return rk->threads.name[row];
    snprintf(buf, len, "thread %lld", (long long)row);
    return buf;
}

const char *rank_task_name(const rank_data *rk, int64_t row, char *buf, size_t len)
{
    if (rk->has_tasks && rk->tasks.name && row >= 0 && (size_t)row < rk->tasks.n)
        return rk->tasks.name[row];
    if (row < 0)
        snprintf(buf, len, "no task");
    else
        snprintf(buf, len, "task %lld", (long long)row);
    return buf;
}
