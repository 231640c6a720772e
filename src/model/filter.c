#include "filter.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/text.h"

void filter_init(region_filter *f)
{
    memset(f, 0, sizeof *f);
}

static void free_regexes(regex_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        regfree(&v[i]);
    free(v);
}

void filter_free(region_filter *f)
{
    free_regexes(f->include, f->ninclude);
    free_regexes(f->exclude, f->nexclude);
    free(f->ranks);
    filter_init(f);
}

/* Python's re.match anchors at the start only: "^(" re ")". */
static sv_err add_regex(regex_t **v, size_t *n, const char *re, sv_error *err)
{
    regex_t *grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    *v = grown;
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "^(");
    sb_puts(&b, re);
    sb_puts(&b, ")");
    if (b.oom) {
        sb_free(&b);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    int rc = regcomp(&grown[*n], b.s, REG_EXTENDED | REG_NOSUB);
    sb_free(&b);
    if (rc != 0) {
        char why[128], shown[128];
        regerror(rc, &grown[*n], why, sizeof why);
        regfree(&grown[*n]);
        text_escape_buf(shown, sizeof shown, re);
        return sv_error_set(err, SV_ERR_REGEX, "bad regular expression '%s': %s", shown, why);
    }
    (*n)++;
    return SV_OK;
}

sv_err filter_add_include(region_filter *f, const char *re, sv_error *err)
{
    return add_regex(&f->include, &f->ninclude, re, err);
}

sv_err filter_add_exclude(region_filter *f, const char *re, sv_error *err)
{
    return add_regex(&f->exclude, &f->nexclude, re, err);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool parse_rank_number(const char **s, int *out)
{
    const char *p = *s;
    if (*p < '0' || *p > '9')
        return false;
    long v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p++ - '0');
        if (v > 1000000)
            return false;
    }
    *out = (int)v;
    *s = p;
    return true;
}

static bool push_range(region_filter *f, int lo, int hi)
{
    size_t add = (size_t)(hi - lo) + 1;
    int *v = realloc(f->ranks, (f->nranks + add) * sizeof *v);
    if (!v)
        return false;
    f->ranks = v;
    for (int r = lo; r <= hi; r++)
        f->ranks[f->nranks++] = r;
    return true;
}

/* One "N" or "N-M" item; advances *s past it. */
static sv_err parse_rank_item(region_filter *f, const char **s, const char *shown, sv_error *err)
{
    int lo, hi;
    if (!parse_rank_number(s, &lo))
        return sv_error_set(err, SV_ERR_USAGE, "bad rank list '%s' (expected e.g. 0-3,5)", shown);
    hi = lo;
    if (**s == '-') {
        (*s)++;
        if (!parse_rank_number(s, &hi))
            return sv_error_set(err, SV_ERR_USAGE, "bad rank list '%s' (expected e.g. 0-3,5)",
                                shown);
    }
    if (hi < lo || hi - lo > 100000)
        return sv_error_set(err, SV_ERR_USAGE, "bad rank range in '%s'", shown);
    if (!push_range(f, lo, hi))
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    return SV_OK;
}

static void uniq_ranks(region_filter *f)
{
    qsort(f->ranks, f->nranks, sizeof *f->ranks, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < f->nranks; i++)
        if (k == 0 || f->ranks[k - 1] != f->ranks[i])
            f->ranks[k++] = f->ranks[i];
    f->nranks = k;
}

sv_err filter_set_ranks(region_filter *f, const char *list, sv_error *err)
{
    char shown[96];
    text_escape_buf(shown, sizeof shown, list);
    free(f->ranks);
    f->ranks = NULL;
    f->nranks = 0;
    const char *s = list;
    sv_err e;
    while (!(e = parse_rank_item(f, &s, shown, err)) && *s == ',')
        s++;
    if (!e && *s != '\0')
        e = sv_error_set(err, SV_ERR_USAGE, "bad rank list '%s' (expected e.g. 0-3,5)", shown);
    if (e) {
        free(f->ranks);
        f->ranks = NULL;
        f->nranks = 0;
        return e;
    }
    uniq_ranks(f);
    return SV_OK;
}

static bool any_match(const regex_t *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (regexec(&v[i], name, 0, NULL, 0) == 0)
            return true;
    return false;
}

bool filter_match_name(const region_filter *f, const char *name)
{
    if (!f)
        return true;
    if (f->ninclude && !any_match(f->include, f->ninclude, name))
        return false;
    return !any_match(f->exclude, f->nexclude, name);
}

bool filter_match_rank(const region_filter *f, int rank)
{
    if (!f || !f->ranks)
        return true;
    return bsearch(&rank, f->ranks, f->nranks, sizeof rank, cmp_int) != NULL;
}

bool filter_match(const region_filter *f, const region *r)
{
    return filter_match_rank(f, r->rank) && filter_match_name(f, r->name);
}
