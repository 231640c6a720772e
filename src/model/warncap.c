/* warncap: see warncap.h.  Kinds live in a small open-addressing table of
 * 64-bit hashes owned by the profile. */
#include "warncap.h"
#include "util/hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct warn_kind {
    uint64_t hash; /* 0 = empty slot */
    uint64_t count;
    size_t more_at; /* index of the "more" line in p->warnings, once there */
} warn_kind;

struct warn_kinds {
    warn_kind *v;
    size_t n, cap;
};

static const char *warn_reason(const char *line)
{
    const char *r = line, *s;
    while ((s = strstr(r, ": ")))
        r = s + 2;
    return r;
}

/* FNV-1a of the reason, digits skipped. */
static uint64_t warn_hash(const char *reason)
{
    uint64_t h = SV_FNV64_INIT;
    for (const unsigned char *c = (const unsigned char *)reason; *c; c++) {
        if (*c >= '0' && *c <= '9')
            continue;
        h = sv_fnv64_byte(h, *c);
    }
    return h ? h : 1;
}

static bool warn_kinds_grow(struct warn_kinds *k)
{
    size_t cap = k->cap ? k->cap * 2 : 64;
    warn_kind *v = calloc(cap, sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < k->cap; i++) {
        if (!k->v[i].hash)
            continue;
        size_t j = (size_t)k->v[i].hash & (cap - 1);
        while (v[j].hash)
            j = (j + 1) & (cap - 1);
        v[j] = k->v[i];
    }
    free(k->v);
    k->v = v;
    k->cap = cap;
    return true;
}

static warn_kind *warn_kind_of(struct warn_kinds *k, uint64_t h)
{
    if ((k->n + 1) * 2 > k->cap && !warn_kinds_grow(k))
        return NULL;
    size_t j = (size_t)h & (k->cap - 1);
    while (k->v[j].hash && k->v[j].hash != h)
        j = (j + 1) & (k->cap - 1);
    if (!k->v[j].hash) {
        k->v[j].hash = h;
        k->n++;
    }
    return &k->v[j];
}

/* "199 900": groups of three digits, as the rest of the interface. */
static void warn_count_text(char *buf, size_t len, uint64_t n)
{
    char d[32];
    int nd = snprintf(d, sizeof d, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            buf[o++] = ' ';
        buf[o++] = d[i];
    }
    buf[o] = '\0';
}

static void warn_more_text(char *buf, size_t cap, uint64_t more, const char *reason)
{
    char num[40];
    warn_count_text(num, sizeof num, more);
    char r[512];
    snprintf(r, sizeof r, "%s", reason);
    snprintf(buf, cap, "and %s more like it: %s", num, r);
}

bool warn_cap_admit(profile *p, char *line, size_t cap)
{
    if (!p->warn_kinds) {
        p->warn_kinds = calloc(1, sizeof *p->warn_kinds);
        if (!p->warn_kinds)
            return true; /* no memory to count with: keep the line */
    }
    const char *reason = warn_reason(line);
    warn_kind *k = warn_kind_of(p->warn_kinds, warn_hash(reason));
    if (!k)
        return true;
    k->count++;
    if (k->count <= WARN_CAP_PER_KIND)
        return true;
    uint64_t more = k->count - WARN_CAP_PER_KIND;
    if (more == 1) {
        /* This one becomes the "more" line, appended at the end next. */
        char buf[1024];
        warn_more_text(buf, sizeof buf, more, reason);
        snprintf(line, cap, "%s", buf);
        k->more_at = p->nwarnings;
        return true;
    }
    if (k->more_at >= p->nwarnings)
        return false; /* the "more" line could not be stored: just count */
    char buf[1024];
    const char *old = p->warnings[k->more_at];
    const char *r = strstr(old, " more like it: ");
    warn_more_text(buf, sizeof buf, more, r ? r + strlen(" more like it: ") : reason);
    char *copy = strdup(buf);
    if (copy) {
        free(p->warnings[k->more_at]);
        p->warnings[k->more_at] = copy;
    }
    return false;
}

void warn_cap_free(profile *p)
{
    if (!p->warn_kinds)
        return;
    free(p->warn_kinds->v);
    free(p->warn_kinds);
    p->warn_kinds = NULL;
}
