/* out_tables: the ranks' thread and task tables in --json ("lane_tables"):
 * one object per rank that has either, every column the file stored, null
 * where it did not; times in seconds on the file's clock, durations in
 * seconds; a task's done_time null and "unfinished" true when the table
 * says -1, a thread's end_time null when it was still running. */
#include "outputs.h"
#include "model/filter.h"
#include "model/region.h"
#include "util/text.h"
#include "util/timefmt.h"

static void put_key(strbuf *b, bool *first, const char *key)
{
    sb_printf(b, "%s\"%s\": ", *first ? "" : ", ", key);
    *first = false;
}

/* v[i] in seconds; null without the column or for a negative "none". */
static void put_secs(strbuf *b, bool *first, const char *key, const int64_t *v, size_t i,
                     bool neg_null)
{
    char num[64];
    put_key(b, first, key);
    if (!v || (neg_null && v[i] < 0))
        sb_puts(b, "null");
    else
        sb_puts(b, fmt_double_exact(num, sizeof num, (double)v[i] / SV_NS_PER_SECOND));
}

static void put_int(strbuf *b, bool *first, const char *key, const int64_t *v, size_t i)
{
    put_key(b, first, key);
    if (v)
        sb_printf(b, "%lld", (long long)v[i]);
    else
        sb_puts(b, "null");
}

static void put_str(strbuf *b, bool *first, const char *key, char *const *v, size_t i)
{
    put_key(b, first, key);
    if (v && v[i])
        json_escape(b, v[i]);
    else
        sb_puts(b, "null");
}

static void json_threads(strbuf *b, const thread_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        bool first = true;
        sb_printf(b, "%s{", i ? ", " : "");
        put_key(b, &first, "row");
        sb_printf(b, "%zu", i);
        put_str(b, &first, "name", t->name, i);
        put_int(b, &first, "ident", t->ident, i);
        put_int(b, &first, "native_id", t->native_id, i);
        put_key(b, &first, "daemon");
        sb_puts(b, !t->daemon ? "null" : t->daemon[i] ? "true" : "false");
        put_secs(b, &first, "start_time", t->start_ns, i, false);
        put_secs(b, &first, "end_time", t->end_ns, i, true);
        put_secs(b, &first, "cpu_time", t->cpu_ns, i, false);
        sb_putc(b, '}');
    }
}

static void json_tasks(strbuf *b, const task_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        bool first = true;
        sb_printf(b, "%s{", i ? ", " : "");
        put_key(b, &first, "row");
        sb_printf(b, "%zu", i);
        put_str(b, &first, "name", t->name, i);
        put_str(b, &first, "kind", t->kind, i);
        put_str(b, &first, "coro_name", t->coro_name, i);
        put_int(b, &first, "thread", t->thread, i);
        put_secs(b, &first, "created_time", t->created_ns, i, false);
        put_secs(b, &first, "done_time", t->done_ns, i, true);
        put_key(b, &first, "unfinished");
        sb_puts(b, !t->done_ns ? "null" : t->done_ns[i] < 0 ? "true" : "false");
        put_int(b, &first, "steps", t->steps, i);
        put_secs(b, &first, "running_time", t->running_ns, i, false);
        put_secs(b, &first, "suspended_time", t->suspended_ns, i, false);
        sb_putc(b, '}');
    }
}

void out_json_lane_tables(strbuf *b, const profile *p, const region_filter *f)
{
    sb_puts(b, "  \"lane_tables\": [");
    bool any = false;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if ((!rk->has_threads && !rk->has_tasks) || !filter_match_rank(f, rk->rank))
            continue;
        sb_printf(b, "%s\n    {\"rank\": %d, \"threads\": [", any ? "," : "", rk->rank);
        if (rk->has_threads)
            json_threads(b, &rk->threads);
        sb_puts(b, "], \"tasks\": [");
        if (rk->has_tasks)
            json_tasks(b, &rk->tasks);
        sb_puts(b, "]}");
        any = true;
    }
    sb_puts(b, any ? "\n  ],\n" : "],\n");
}
