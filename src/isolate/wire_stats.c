/* wire_stats: the statistics trailer of the viewer's load (wire_stats.h).
 *
 * Small next to the model (a record per region), so it is written into one
 * buffer and sent by one loop of writes, and read field by field with exact
 * reads (nothing read ahead).  Its own few primitives keep it apart from
 * wire.c's model stream. */
#include "wire_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "model/budget.h"

#define WS_MAGIC "SVW1"
#define WS_END "END!"
/* As wire.c: no warning line is longer (profile_warn cuts at 1 KiB); an
 * error message is at most SV_MSG_MAX. */
#define WS_STR_MAX ((uint64_t)1 << 16)
#define WS_WARN_MAX ((uint64_t)1 << 20)

/* ------------------------------------------------------------ writer */

static void ws_u64(strbuf *b, uint64_t v)
{
    sb_putn(b, (const char *)&v, sizeof v);
}

static void ws_str(strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    ws_u64(b, n);
    sb_putn(b, s ? s : "", n);
}

static int ws_write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int wire_send_stats(int fd, const profile *p, size_t warn_from)
{
    strbuf b;
    sb_init(&b);
    sb_putn(&b, WS_MAGIC "S", 5);
    ws_u64(&b, p->nregions);
    for (size_t i = 0; i < p->nregions; i++)
        sb_putn(&b, (const char *)&p->regions[i]->st, sizeof p->regions[i]->st);
    ws_u64(&b, p->nranks);
    for (size_t i = 0; i < p->nranks; i++) {
        ws_u64(&b, p->ranks[i].explicit_ids);
        ws_u64(&b, p->ranks[i].ninferred_lanes);
    }
    ws_u64(&b, p->has_min_start);
    ws_u64(&b, (uint64_t)p->min_start_ns);
    size_t from = warn_from < p->nwarnings ? warn_from : p->nwarnings;
    ws_u64(&b, p->nwarnings - from);
    for (size_t i = from; i < p->nwarnings; i++)
        ws_str(&b, p->warnings[i]);
    sb_putn(&b, WS_END, 4);
    int rc = b.oom ? ENOMEM : ws_write_all(fd, b.s, b.len);
    sb_free(&b);
    return rc;
}

/* ------------------------------------------------------------ reader */

typedef struct ws_r {
    const wire_src *src;
    wire_status bad; /* WIRE_PROFILE while all is well */
    const char *what;
    uint64_t budget, used;
} ws_r;

static void ws_fail(ws_r *r, wire_status s)
{
    if (r->bad == WIRE_PROFILE)
        r->bad = s;
}

static bool ws_bytes(ws_r *r, void *dst, size_t n)
{
    unsigned char *d = dst;
    while (n && r->bad == WIRE_PROFILE) {
        ssize_t k = r->src->read(r->src->ctx, d, n);
        if (k <= 0) {
            ws_fail(r, WIRE_BROKEN);
            break;
        }
        d += k;
        n -= (size_t)k;
    }
    return r->bad == WIRE_PROFILE;
}

static uint64_t ws_get_u64(ws_r *r)
{
    uint64_t v = 0;
    return ws_bytes(r, &v, sizeof v) ? v : 0;
}

/* A 0/1 word; anything else is a malformed trailer. */
static bool ws_get_flag(ws_r *r)
{
    uint64_t v = ws_get_u64(r);
    if (v > 1)
        ws_fail(r, WIRE_BROKEN);
    return v == 1;
}

static void *ws_alloc(ws_r *r, uint64_t n, size_t sz)
{
    if (r->bad != WIRE_PROFILE)
        return NULL;
    uint64_t bytes = sz && n > UINT64_MAX / sz ? UINT64_MAX : n * sz;
    if (bytes > SIZE_MAX / 2 || (r->budget && (bytes > r->budget || r->used > r->budget - bytes))) {
        ws_fail(r, WIRE_BUDGET);
        return NULL;
    }
    void *v = calloc(bytes ? (size_t)bytes : 1, 1);
    if (!v) {
        ws_fail(r, WIRE_BUDGET);
        return NULL;
    }
    r->used += bytes;
    return v;
}

static char *ws_get_str(ws_r *r)
{
    uint64_t n = ws_get_u64(r);
    if (n > WS_STR_MAX)
        ws_fail(r, WIRE_BROKEN);
    char *s = ws_alloc(r, n + 1, 1);
    if (s && !ws_bytes(r, s, (size_t)n)) {
        free(s);
        return NULL;
    }
    return s;
}

static bool ws_tag(ws_r *r, const char *tag)
{
    char got[4];
    if (ws_bytes(r, got, 4) && memcmp(got, tag, 4) != 0)
        ws_fail(r, WIRE_BROKEN);
    return r->bad == WIRE_PROFILE;
}

/* A count that must equal what the model holds. */
static void ws_expect(ws_r *r, uint64_t want)
{
    if (ws_get_u64(r) != want)
        ws_fail(r, WIRE_BROKEN);
}

static void ws_body(ws_r *r, wire_stats *s)
{
    r->what = "the regions' statistics";
    ws_expect(r, s->nregions);
    s->st = ws_alloc(r, s->nregions, sizeof *s->st);
    if (s->st)
        ws_bytes(r, s->st, s->nregions * sizeof *s->st);
    r->what = "the ranks' nesting";
    ws_expect(r, s->nranks);
    s->explicit_ids = ws_alloc(r, s->nranks, sizeof *s->explicit_ids);
    s->ninferred_lanes = ws_alloc(r, s->nranks, sizeof *s->ninferred_lanes);
    for (size_t i = 0; r->bad == WIRE_PROFILE && i < s->nranks; i++) {
        s->explicit_ids[i] = ws_get_flag(r);
        uint64_t l = ws_get_u64(r);
        if (l > UINT32_MAX)
            ws_fail(r, WIRE_BROKEN);
        s->ninferred_lanes[i] = (uint32_t)l;
    }
    r->what = "the minimum start";
    s->has_min_start = ws_get_flag(r);
    s->min_start_ns = (int64_t)ws_get_u64(r);
    r->what = "the warnings";
    uint64_t nw = ws_get_u64(r);
    if (nw > WS_WARN_MAX)
        ws_fail(r, WIRE_BROKEN);
    s->warnings = ws_alloc(r, nw, sizeof *s->warnings);
    for (size_t i = 0; s->warnings && i < nw && r->bad == WIRE_PROFILE; i++) {
        s->warnings[i] = ws_get_str(r);
        s->nwarnings = i + 1;
    }
    r->what = "its end";
    ws_tag(r, WS_END);
}

/* The child's error message (wire.h's 'E'): code, message, end. */
static wire_status ws_error(ws_r *r, sv_error *err)
{
    int64_t code = (int64_t)ws_get_u64(r);
    char *msg = ws_get_str(r);
    ws_tag(r, WS_END);
    if (r->bad == WIRE_PROFILE && (code <= SV_OK || code > SV_ERR_USAGE))
        ws_fail(r, WIRE_BROKEN);
    if (r->bad == WIRE_PROFILE)
        sv_error_set(err, (sv_err)code, "%s", msg);
    free(msg);
    return r->bad == WIRE_PROFILE ? WIRE_ERROR : r->bad;
}

wire_status wire_recv_stats(const wire_src *src, size_t nregions, size_t nranks, uint64_t budget,
                            wire_stats **out, sv_error *err)
{
    *out = NULL;
    ws_r r = {src, WIRE_PROFILE, "its start", budget, 0};
    wire_stats *s = calloc(1, sizeof *s);
    if (!s) {
        sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return WIRE_BUDGET;
    }
    s->nregions = nregions;
    s->nranks = nranks;
    char kind = 0;
    wire_status st = WIRE_PROFILE;
    if (ws_tag(&r, WS_MAGIC) && ws_bytes(&r, &kind, 1)) {
        if (kind == 'S')
            ws_body(&r, s);
        else if (kind == 'E')
            st = ws_error(&r, err);
        else
            ws_fail(&r, WIRE_BROKEN);
    }
    if (st == WIRE_PROFILE && r.bad == WIRE_PROFILE) {
        *out = s;
        return WIRE_PROFILE;
    }
    wire_stats_free(s);
    if (st == WIRE_ERROR)
        return st;
    if (r.bad == WIRE_BUDGET) {
        char lim[32];
        budget_format(lim, sizeof lim, budget);
        sv_error_set(err, SV_ERR_NOMEM,
                     "the statistics need more than the memory budget (%s) at %s", lim, r.what);
    } else
        sv_error_set(err, SV_ERR_DAMAGED,
                     "the loading process's statistics ended early or are malformed at %s", r.what);
    return r.bad;
}

bool wire_stats_install(profile *p, const wire_stats *s)
{
    if (!s || s->nregions != p->nregions || s->nranks != p->nranks)
        return false;
    if (s->nwarnings) {
        size_t n = p->nwarnings + s->nwarnings;
        if (n > p->nwarnings_cap) {
            char **w = realloc(p->warnings, n * sizeof *w);
            if (!w)
                return false;
            p->warnings = w;
            p->nwarnings_cap = n;
        }
    }
    for (size_t i = 0; i < p->nregions; i++)
        p->regions[i]->st = s->st[i];
    for (size_t i = 0; i < p->nranks; i++) {
        p->ranks[i].explicit_ids = s->explicit_ids[i];
        p->ranks[i].ninferred_lanes = s->ninferred_lanes[i];
    }
    p->has_min_start = s->has_min_start;
    p->min_start_ns = s->min_start_ns;
    for (size_t i = 0; i < s->nwarnings; i++) {
        char *w = s->warnings[i] ? strdup(s->warnings[i]) : NULL;
        if (w)
            p->warnings[p->nwarnings++] = w;
    }
    return true;
}

void wire_stats_free(wire_stats *s)
{
    if (!s)
        return;
    free(s->st);
    free(s->explicit_ids);
    free(s->ninferred_lanes);
    for (size_t i = 0; i < s->nwarnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    free(s);
}
