/* budget: see budget.h. */
#include "budget.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

static void budget_note(load_budget *b, uint64_t bytes, const char *what)
{
    int at = BUDGET_TOP;
    while (at > 0 && b->top[at - 1].bytes < bytes)
        at--;
    if (at >= BUDGET_TOP)
        return;
    memmove(&b->top[at + 1], &b->top[at], (size_t)(BUDGET_TOP - 1 - at) * sizeof b->top[0]);
    text_escape_buf(b->top[at].what, sizeof b->top[at].what, what ? what : "?");
    b->top[at].bytes = bytes;
}

bool budget_charge(load_budget *b, uint64_t bytes, const char *what)
{
    if (!b)
        return true;
    budget_note(b, bytes, what);
    if (b->limit && (bytes > b->limit || b->used > b->limit - bytes)) {
        b->exceeded = true;
        return false;
    }
    b->used += bytes;
    if (b->on_charge)
        b->on_charge(b->on_charge_ctx, bytes);
    return true;
}

static void budget_size(char *buf, size_t len, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}

void budget_message(const load_budget *b, const char *epath, char *buf, size_t len)
{
    char lim[32];
    budget_size(lim, sizeof lim, b->limit);
    int o = snprintf(buf, len, "%s: the load needs more than the memory budget of %s (--memory)",
                     epath, lim);
    for (int i = 0; i < BUDGET_TOP && b->top[i].bytes && o > 0 && (size_t)o < len; i++) {
        char sz[32];
        budget_size(sz, sizeof sz, b->top[i].bytes);
        o += snprintf(buf + o, len - (size_t)o, "%s%s %s",
                      i ? ", " : "; the biggest columns: ", b->top[i].what, sz);
    }
}
