/* --json: one object describing the profile and every selected (region, rank) pair.
 *
 * Layout: the top-level keys one per line, each region object on one line, so the output is
 * both valid JSON and easy to grep or diff. */
#include <math.h>
#include <stdlib.h>

#include "model/lineprof.h"
#include "outputs.h"
#include "model/region.h"
#include "util/text.h"
#include "util/timefmt.h"

static void json_metadata(strbuf *b, const profile *p)
{
    sb_putc(b, '{');
    for (size_t i = 0; i < p->nmeta; i++) {
        if (i)
            sb_puts(b, ", ");
        json_escape(b, p->meta[i].key ? p->meta[i].key : "");
        sb_puts(b, ": ");
        json_escape(b, p->meta[i].text ? p->meta[i].text : "");
    }
    sb_putc(b, '}');
}

/* num_ranks and ranks describe the ranks the rank filter lets through. */
static void json_ranks(strbuf *b, const profile *p, const region_filter *f)
{
    size_t count = 0;
    strbuf list;
    sb_init(&list);
    for (size_t i = 0; i < p->nranks; i++) {
        if (!filter_match_rank(f, p->ranks[i].rank))
            continue;
        sb_printf(&list, "%s%d", count ? ", " : "", p->ranks[i].rank);
        count++;
    }
    if (list.oom)
        b->oom = true;
    sb_printf(b, "  \"num_ranks\": %zu,\n  \"ranks\": [%s],\n", count, list.s ? list.s : "");
    sb_free(&list);
}

static void json_header(strbuf *b, const profile *p, const region_filter *f)
{
    char num[64];
    static const char *const layouts[] = {"groups", "columnar", "aggregate", "native"};
    sb_puts(b, "{\n  \"file\": ");
    json_escape(b, p->path ? p->path : "");
    /* Every file of a C-API rank set; the layout scope-profiler wrote (doc/FORMAT.md). */
    sb_puts(b, ",\n  \"files\": [");
    for (size_t i = 0; i < p->npaths; i++) {
        sb_puts(b, i ? ", " : "");
        json_escape(b, p->paths[i] ? p->paths[i] : "");
    }
    /* What each file is (a native trace's version and byte order). */
    sb_puts(b, "],\n  \"file_formats\": [");
    for (size_t i = 0; i < p->npaths; i++) {
        sb_puts(b, i ? ", " : "");
        if (p->path_formats && p->path_formats[i])
            json_escape(b, p->path_formats[i]);
        else
            sb_puts(b, "null");
    }
    /* Native traces have no schema. */
    if (p->layout == LAYOUT_NATIVE)
        sb_puts(b, "],\n  \"schema\": null");
    else
        sb_printf(b, "],\n  \"schema\": %d", p->schema);
    sb_printf(b, ",\n  \"layout\": \"%s\"",
              (unsigned)p->layout < 4 ? layouts[p->layout] : "unknown");
    sb_puts(b, ",\n  \"metadata\": ");
    json_metadata(b, p);
    sb_puts(b, ",\n");
    json_ranks(b, p, f);
    out_json_lane_tables(b, p, f);
    sb_puts(b, "  \"minimum_start_time\": ");
    if (p->has_min_start)
        sb_puts(b, fmt_double_exact(num, sizeof num, (double)p->min_start_ns / SV_NS_PER_SECOND));
    else
        sb_puts(b, "null");
    sb_puts(b, ",\n  \"regions\": [");
}

/* ", "counters": [...]" when the file holds hardware counters for r: one object per counter,
 * value as stored (LIKWID: summed over threads), per_call over the record's calls. */
static void json_counters(strbuf *b, const region *r)
{
    const perf_record *recs[16];
    size_t n = lineprof_counters(r->owner, r->name, recs, 16);
    if (n == 0)
        return;
    char num[64];
    bool first = true;
    sb_puts(b, ", \"counters\": [");
    for (size_t k = 0; k < n && k < 16; k++) {
        const perf_record *pr = recs[k];
        for (size_t j = 0; j < pr->n; j++) {
            sb_puts(b, first ? "{\"source\": " : ", {\"source\": ");
            first = false;
            json_escape(b, pr->kind ? pr->kind : "");
            sb_puts(b, ", \"name\": ");
            json_escape(b, pr->names[j] ? pr->names[j] : "");
            /* JSON has no NaN: a LIKWID matrix may hold one. */
            bool finite = isfinite(pr->values[j]);
            sb_printf(b, ", \"value\": %s",
                      finite ? fmt_double_exact(num, sizeof num, pr->values[j]) : "null");
            if (pr->calls >= 0)
                sb_printf(b, ", \"calls\": %lld", (long long)pr->calls);
            else
                sb_puts(b, ", \"calls\": null");
            if (pr->calls > 0 && finite)
                sb_printf(b, ", \"per_call\": %s",
                          fmt_double_exact(num, sizeof num, pr->values[j] / (double)pr->calls));
            else
                sb_puts(b, ", \"per_call\": null");
            sb_putc(b, '}');
        }
    }
    sb_putc(b, ']');
}

static sv_err json_region(strbuf *b, const region *r, sv_error *err)
{
    out_value v[OUT_REGION_NFIELDS];
    int64_t *threads = NULL;
    sv_err rc = out_region_values(r, v, &threads, err);
    if (rc != SV_OK)
        return rc;
    sb_puts(b, "    {");
    for (size_t k = 0; k < OUT_REGION_NFIELDS; k++) {
        sb_printf(b, "%s\"%s\": ", k ? ", " : "", out_region_keys[k]);
        out_json_value(b, &v[k]);
    }
    json_counters(b, r);
    sb_putc(b, '}');
    free(threads);
    return SV_OK;
}

sv_err out_json(const profile *p, const region_filter *f, FILE *fp, sv_error *err)
{
    region **regs = NULL;
    size_t n = 0;
    sv_err rc = out_select(p, f, &regs, &n, err);
    if (rc != SV_OK)
        return rc;
    strbuf b;
    sb_init(&b);
    json_header(&b, p, f);
    for (size_t i = 0; i < n && rc == SV_OK && !ferror(fp); i++) {
        sb_puts(&b, i ? ",\n" : "\n");
        rc = json_region(&b, regs[i], err);
        if (rc == SV_OK && !out_flush_buf(&b, fp))
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing JSON");
    }
    if (rc == SV_OK) {
        sb_puts(&b, n ? "\n  ]\n}\n" : "]\n}\n");
        if (!out_flush_buf(&b, fp))
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing JSON");
    }
    sb_free(&b);
    free(regs);
    return rc;
}
