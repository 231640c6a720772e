/* diff_cells: cell text the compare view's tables share. */
#include <math.h>
#include <stdio.h>

#include "diff_views.h"
#include "util/timefmt.h"

void cmp_fmt_ns(char *b, size_t n, bool known, double ns, bool sign)
{
    if (!known) {
        snprintf(b, n, "-");
        return;
    }
    char num[40];
    timefmt_ns(num, sizeof num, ns);
    snprintf(b, n, "%s%s", sign && ns > 0 ? "+" : "", num);
}

void cmp_fmt_rel(char *b, size_t n, bool known, double rel)
{
    if (!known)
        snprintf(b, n, "-");
    else if (isinf(rel))
        snprintf(b, n, "%s", rel > 0 ? "new" : "gone");
    else
        snprintf(b, n, "%+.1f%%", rel * 100.0);
}

void cmp_fmt_p(char *b, size_t n, const diff_row *r)
{
    if (!r->tested)
        snprintf(b, n, "-");
    else if (r->q < 1e-4)
        snprintf(b, n, "%.0e", r->q);
    else
        snprintf(b, n, "%.4f", r->q);
}

const char *cmp_mark(const diff_row *r, bool ascii)
{
    if (r->state == DS_NEW)
        return "new";
    if (r->state == DS_GONE)
        return "gone";
    if (r->flag > 0)
        return ascii ? "^ slow" : "▲ slow";
    if (r->flag < 0)
        return ascii ? "v fast" : "▼ fast";
    return r->tested ? "" : "untest";
}

int cmp_mark_role(const diff_row *r)
{
    return r->flag > 0 ? ROLE_WARNING : r->flag < 0 ? ROLE_SEARCH : ROLE_DIM;
}
