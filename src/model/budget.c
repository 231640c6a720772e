/* budget: see budget.h. */
#include "budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/hash.h"

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

void budget_format(char *buf, size_t len, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (v == (double)(uint64_t)v)
        snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}

void budget_message(const load_budget *b, const char *epath, char *buf, size_t len)
{
    char lim[32];
    budget_format(lim, sizeof lim, b->limit);
    int o = snprintf(buf, len, "%s: the load needs more than the memory budget of %s (--memory)",
                     epath, lim);
    for (int i = 0; i < BUDGET_TOP && b->top[i].bytes && o > 0 && (size_t)o < len; i++) {
        char sz[32];
        budget_size(sz, sizeof sz, b->top[i].bytes);
        o += snprintf(buf + o, len - (size_t)o, "%s%s %s",
                      i ? ", " : "; the biggest columns: ", b->top[i].what, sz);
    }
}

static uint64_t budget_hash(uint64_t x)
{
    return sv_hash_u64(x);
}

static bool budget_seen_grow(load_budget *b)
{
    size_t cap = b->seen_cap ? b->seen_cap * 2 : 256;
    uint64_t *v = malloc(cap * sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < cap; i++)
        v[i] = UINT64_MAX;
    for (size_t i = 0; i < b->seen_cap; i++) {
        if (b->seen[i] == UINT64_MAX)
            continue;
        size_t j = (size_t)budget_hash(b->seen[i]) & (cap - 1);
        while (v[j] != UINT64_MAX)
            j = (j + 1) & (cap - 1);
        v[j] = b->seen[i];
    }
    free(b->seen);
    b->seen = v;
    b->seen_cap = cap;
    return true;
}

bool budget_seen(load_budget *b, uint64_t addr)
{
    if (!b || addr == UINT64_MAX)
        return false;
    if ((b->nseen + 1) * 2 > b->seen_cap && !budget_seen_grow(b))
        return false;
    size_t j = (size_t)budget_hash(addr) & (b->seen_cap - 1);
    while (b->seen[j] != UINT64_MAX) {
        if (b->seen[j] == addr)
            return true;
        j = (j + 1) & (b->seen_cap - 1);
    }
    b->seen[j] = addr;
    b->nseen++;
    return false;
}

void budget_free(load_budget *b)
{
    free(b->seen);
    b->seen = NULL;
    b->nseen = b->seen_cap = 0;
}
