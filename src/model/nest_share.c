/* nest_share: the per-call build's exclusive totals for the statistics
 * (nest_share.h). */
#include "nest_share.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SHARE_PENDING, SHARE_PUT, SHARE_NONE } share_state;

typedef struct share_rank {
    share_state state;
    int rank;
    size_t nregions, ncalls;
    int64_t *tot; /* nregions */
    uint32_t nlanes;
    bool capped;
} share_rank;

struct nest_share {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned refs;
    bool closed;
    size_t nranks;
    share_rank *ranks;
};

nest_share *nest_share_new(size_t nranks)
{
    nest_share *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    sh->ranks = calloc(nranks ? nranks : 1, sizeof *sh->ranks);
    if (!sh->ranks) {
        free(sh);
        return NULL;
    }
    sh->nranks = nranks;
    sh->refs = 1;
    pthread_mutex_init(&sh->mu, NULL);
    pthread_cond_init(&sh->cv, NULL);
    return sh;
}

nest_share *nest_share_ref(nest_share *sh)
{
    if (!sh)
        return NULL;
    pthread_mutex_lock(&sh->mu);
    sh->refs++;
    pthread_mutex_unlock(&sh->mu);
    return sh;
}

void nest_share_unref(nest_share *sh)
{
    if (!sh)
        return;
    pthread_mutex_lock(&sh->mu);
    bool last = --sh->refs == 0;
    pthread_mutex_unlock(&sh->mu);
    if (!last)
        return;
    for (size_t k = 0; k < sh->nranks; k++)
        free(sh->ranks[k].tot);
    free(sh->ranks);
    pthread_mutex_destroy(&sh->mu);
    pthread_cond_destroy(&sh->cv);
    free(sh);
}

/* Under the lock: rank k settled as given (tot owned, or NULL: none). */
static void share_settle(nest_share *sh, size_t k, share_rank *v)
{
    share_rank *r = &sh->ranks[k];
    if (sh->closed || r->state != SHARE_PENDING) {
        free(v->tot);
        return;
    }
    *r = *v;
    pthread_cond_broadcast(&sh->cv);
}

void nest_share_put(nest_share *sh, size_t k, const rank_data *rk, const int64_t *tot,
                    uint32_t nlanes, bool capped)
{
    if (!sh || k >= sh->nranks)
        return;
    share_rank v = {SHARE_PUT, rk->rank, rk->nregions, rk->ncalls, NULL, nlanes, capped};
    v.tot = malloc((rk->nregions ? rk->nregions : 1) * sizeof *v.tot);
    if (v.tot)
        memcpy(v.tot, tot, rk->nregions * sizeof *v.tot);
    else
        v.state = SHARE_NONE;
    pthread_mutex_lock(&sh->mu);
    share_settle(sh, k, &v);
    pthread_mutex_unlock(&sh->mu);
}

void nest_share_none(nest_share *sh, size_t k)
{
    if (!sh || k >= sh->nranks)
        return;
    share_rank v = {SHARE_NONE, 0, 0, 0, NULL, 0, false};
    pthread_mutex_lock(&sh->mu);
    share_settle(sh, k, &v);
    pthread_mutex_unlock(&sh->mu);
}

void nest_share_close(nest_share *sh)
{
    if (!sh)
        return;
    pthread_mutex_lock(&sh->mu);
    for (size_t k = 0; k < sh->nranks; k++)
        if (sh->ranks[k].state == SHARE_PENDING)
            sh->ranks[k].state = SHARE_NONE;
    sh->closed = true;
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}

bool nest_share_take(nest_share *sh, size_t k, rank_data *rk, bool *capped)
{
    *capped = false;
    if (!sh || k >= sh->nranks)
        return false;
    pthread_mutex_lock(&sh->mu);
    while (sh->ranks[k].state == SHARE_PENDING)
        pthread_cond_wait(&sh->cv, &sh->mu);
    const share_rank *r = &sh->ranks[k];
    bool ok = r->state == SHARE_PUT && r->rank == rk->rank && r->nregions == rk->nregions &&
              r->ncalls == rk->ncalls;
    if (ok) {
        for (size_t j = 0; j < rk->nregions; j++)
            rk->regions[j]->st.exclusive_total_ns = r->tot[j];
        rk->explicit_ids = false;
        rk->ninferred_lanes = r->nlanes;
        *capped = r->capped;
    }
    pthread_mutex_unlock(&sh->mu);
    return ok;
}
