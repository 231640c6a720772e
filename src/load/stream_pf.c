/* stream_pf: see stream_pf.h.  Each row has two slots; the reader fills
 * them in turn and the main thread reads them in the same turn, handing
 * one back when it asks for the next.  One mutex and one condition
 * variable (broadcast) serve both directions: a handful of waits per chunk
 * of up to a million calls. */
#include "stream_pf.h"
#include "h5chunk.h"
#include "model/par.h"
#include "util/hooks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The reader's stack: libhdf5's reads and the decoding use little. */
#define PF_STACK_BYTES ((size_t)1 << 20)
#define PF_NONE SIZE_MAX
#define PF_CHUNK_MAX ((size_t)1 << 16)

typedef struct pf_row {
    sc_reader rd;
    sc_row *row;
    sc_row *feed;   /* whose percentile buckets get the durations, or NULL */
    int64_t ps, pe; /* SC_PF_CHECK: the order's last call */
    sc_chunk slot[2];
    int fill;  /* the slot the reader fills next */
    int cur;   /* the slot the main thread reads, -1 before the first */
    bool done; /* the reader met the row's end or an error (or the row is not its) */
    bool init; /* rd and the slots' buffers are allocated */
} pf_row;

struct sc_pf {
    pf_row *r;
    size_t n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool stop;
    size_t want;       /* the row the main thread waits for, or PF_NONE */
    bool check;        /* SC_PF_CHECK */
    sc_pf_stats stats; /* fn NULL: none on the reader */
    /* The decoding's helpers (h5chunk.h) while the reader runs: one read
     * of a chunk of calls decodes a few hundred microseconds, too short
     * for a thread started per read to take its share. */
    par_crew *crew;
    sc_file *sf;
};

static void pf_crew(sc_pf *pf, par_crew *cr)
{
    for (int k = 0; k < SC_NCOL; k++)
        if (pf->sf->open & (1u << k) && pf->sf->col[k].fast)
            h5c_set_crew(pf->sf->col[k].fast, cr);
}

/* The row to fill next: the one waited for, else the first with a free
 * slot; NULL when none. */
static pf_row *pf_pick(sc_pf *pf)
{
    if (pf->want != PF_NONE) {
        pf_row *x = &pf->r[pf->want];
        if (!x->done && !x->slot[x->fill].full)
            return x;
    }
    for (size_t j = 0; j < pf->n; j++) {
        pf_row *x = &pf->r[j];
        if (!x->done && !x->slot[x->fill].full)
            return x;
    }
    return NULL;
}

static void *pf_main(void *arg)
{
    sc_pf *pf = arg;
    pthread_mutex_lock(&pf->mu);
    while (!pf->stop) {
        pf_row *x = pf_pick(pf);
        if (!x) {
            pthread_cond_wait(&pf->cv, &pf->mu);
            continue;
        }
        sc_chunk *sl = &x->slot[x->fill];
        pthread_mutex_unlock(&pf->mu);
        memcpy(x->rd.buf, sl->buf, sizeof sl->buf);
        int k = sc_reader_next(&x->rd);
        if (k == 1 && x->feed)
            stream_pct_feed(&x->feed->pct, x->rd.dur, x->rd.len);
        bool nomem = false, skip = false;
        if (k == 1 && pf->check) {
            nomem = !sc_pass1_check(pf->sf, x->row, &x->rd, &x->ps, &x->pe);
            skip = x->rd.ovf || x->row->bad_end;
            if (!nomem && !skip && pf->stats.fn)
                pf->stats.fn(pf->stats.ctx, (size_t)(x - pf->r), &x->rd);
        }
        pthread_mutex_lock(&pf->mu);
        sl->skip = skip;
        sl->nomem = nomem;
        sl->len = x->rd.len;
        sl->pos = x->rd.pos;
        sl->ovf = x->rd.ovf;
        sl->ovf_at = x->rd.ovf_at;
        sl->rc = k;
        sl->full = true;
        x->done = k <= 0;
        x->fill ^= 1;
        pthread_cond_broadcast(&pf->cv);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

static bool pf_row_init(pf_row *x, sc_file *sf, sc_row *row, sc_row *feed, unsigned want,
                        size_t cap)
{
    x->row = row;
    x->feed = feed;
    x->cur = -1;
    if (row->mem) {
        x->done = true;
        return true;
    }
    x->init = true;
    /* slot 0 has the reader's own buffers, slot 1 the same columns */
    bool ok = sc_reader_init(&x->rd, sf, row, want, cap, feed != NULL);
    memcpy(x->slot[0].buf, x->rd.buf, sizeof x->rd.buf);
    for (int k = 0; ok && k < SC_NCOL; k++)
        if (x->rd.want & (1u << k))
            ok = (x->slot[1].buf[k] = malloc(x->rd.cap * sizeof(int64_t))) != NULL;
    return ok;
}

static void pf_free_rows(sc_pf *pf)
{
    for (size_t j = 0; j < pf->n; j++) {
        pf_row *x = &pf->r[j];
        if (!x->init)
            continue;
        /* the reader's own buffers are slot 0's */
        memcpy(x->rd.buf, x->slot[0].buf, sizeof x->rd.buf);
        sc_reader_free(&x->rd);
        for (int k = 0; k < SC_NCOL; k++)
            free(x->slot[1].buf[k]);
    }
    free(pf->r);
    free(pf);
}

static sc_pf *pf_start(sc_file *sf, sc_row *const *v, sc_row *const *feed, size_t n, unsigned want,
                       size_t cap, unsigned flags, sc_pf_stats st)
{
    sc_pf *pf = calloc(1, sizeof *pf);
    if (!pf)
        return NULL;
    pf->n = n;
    pf->want = PF_NONE;
    pf->r = calloc(n ? n : 1, sizeof *pf->r);
    bool ok = pf->r != NULL;
    for (size_t j = 0; ok && j < n; j++)
        ok = pf_row_init(&pf->r[j], sf, v[j],
                         !(flags & SC_PF_PCT) ? NULL
                         : feed               ? feed[j]
                                              : v[j],
                         want, cap);
    if (!ok) {
        if (pf->r)
            pf_free_rows(pf);
        else
            free(pf);
        return NULL;
    }
    if (pthread_mutex_init(&pf->mu, NULL) != 0) {
        pf_free_rows(pf);
        return NULL;
    }
    if (pthread_cond_init(&pf->cv, NULL) != 0) {
        pthread_mutex_destroy(&pf->mu);
        pf_free_rows(pf);
        return NULL;
    }
    pf->sf = sf;
    pf->check = (flags & SC_PF_CHECK) != 0;
    pf->stats = st; /* before the thread: it reads them */
    pf->crew = par_crew_start(par_threads());
    pf_crew(pf, pf->crew);
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok)
        pthread_attr_setstacksize(&attr, PF_STACK_BYTES);
    int rc = pthread_create(&pf->th, attr_ok ? &attr : NULL, pf_main, pf);
    if (attr_ok)
        pthread_attr_destroy(&attr);
    if (rc != 0) {
        pf_crew(pf, NULL);
        par_crew_stop(pf->crew);
        pthread_cond_destroy(&pf->cv);
        pthread_mutex_destroy(&pf->mu);
        pf_free_rows(pf);
        return NULL;
    }
    return pf;
}

const sc_chunk *sc_pf_next(sc_pf *pf, size_t j)
{
    pf_row *x = &pf->r[j];
    pthread_mutex_lock(&pf->mu);
    if (x->cur >= 0) { /* the chunk before is handed back */
        x->slot[x->cur].full = false;
        pthread_cond_broadcast(&pf->cv);
    }
    x->cur = x->cur < 0 ? 0 : x->cur ^ 1;
    const sc_chunk *sl = &x->slot[x->cur];
    while (!sl->full) {
        pf->want = j;
        pthread_cond_broadcast(&pf->cv);
        pthread_cond_wait(&pf->cv, &pf->mu);
    }
    pf->want = PF_NONE;
    pthread_mutex_unlock(&pf->mu);
    return sl;
}

void sc_pf_stop(sc_pf *pf)
{
    if (!pf)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = true;
    pthread_cond_broadcast(&pf->cv);
    pthread_mutex_unlock(&pf->mu);
    pthread_join(pf->th, NULL);
    pf_crew(pf, NULL);
    par_crew_stop(pf->crew);
    pthread_cond_destroy(&pf->cv);
    pthread_mutex_destroy(&pf->mu);
    pf_free_rows(pf);
}

size_t sc_pf_chunk_len(size_t len)
{
    const char *env = hook_value(HOOK_STREAM_CHUNK);
    if (env && *env && strtol(env, NULL, 10) >= 1)
        return len;
    return len < PF_CHUNK_MAX ? len : PF_CHUNK_MAX;
}

sc_pf *sc_pf_start(sc_file *sf, sc_row *const *v, sc_row *const *feed, size_t n, unsigned want,
                   size_t cap, unsigned flags)
{
    return pf_start(sf, v, feed, n, want, cap, flags, (sc_pf_stats){NULL, NULL});
}

sc_pf *sc_pf_start_stats(sc_file *sf, sc_row *const *v, size_t n, unsigned want, size_t cap,
                         sc_pf_stats st)
{
    return pf_start(sf, v, NULL, n, want, cap, SC_PF_CHECK, st);
}
