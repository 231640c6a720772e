/* test_ooc_slowest: each region's slowest calls from the sweep's calls
 * (ooc_slowest.h), on calls made here: the k slowest (checked against a
 * selection by brute force over the same calls), the tie rule (duration,
 * then row position), exclusive times by hand, k cut when the
 * regions are many, a rank lost, the wire round trip field for field,
 * malformed sections and truncated streams rejected, the check against a
 * skeleton. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/wire.h"
#include "model/lanes.h"
#include "model/profile.h"
#include "model/slowcalls.h"
#include "ooc/ooc_map.h"
#include "ooc/ooc_slowest.h"
#include "testutil.h"

static ooc_call flat(size_t rank, uint32_t reg, uint64_t pos, int64_t s, int64_t e)
{
    return (ooc_call){rank, 0, 0, 0, 0, reg, pos, s, e, -1, -1, false, -1};
}

static void feed(ooc_slowest *sl, ooc_call c)
{
    assert_true(ooc_slowest_call(sl, &c));
}

/* ------------------------------------------------------------ top k */

/* Is x slower than y, written out again from the rule in slowcalls.h. */
static bool slower(int64_t dx, int64_t sx, uint64_t px, int64_t dy, int64_t sy, uint64_t py)
{
    (void)sx;
    (void)sy;
    return dx != dy ? dx > dy : px < py;
}

static void test_top_k(void **state)
{
    (void)state;
    enum { N = 1000 };
    int64_t s[N], d[N];
    bool taken[N] = {false};
    ooc_slowest *sl = ooc_slowest_new(0);
    assert_non_null(sl);
    int64_t t = 0;
    for (int i = 0; i < N; i++) {
        d[i] = (int64_t)((i * 7919) % 50) * 10; /* many ties */
        s[i] = t;
        t += d[i] + 5;
        feed(sl, flat(0, 3, (uint64_t)i, s[i], s[i] + d[i]));
    }
    slow_calls *c = ooc_slowest_take(sl);
    assert_non_null(c);
    assert_int_equal(c->k, SLOW_K_MAX);
    assert_int_equal(c->nranks, 1);
    assert_int_equal(c->nregs, 1);
    const slow_region *r = slow_calls_find(c, 0, 3);
    assert_non_null(r);
    assert_int_equal(r->seen, N);
    assert_int_equal(r->n, SLOW_K_MAX);
    for (size_t j = 0; j < r->n; j++) { /* the j-th pick by brute force */
        int best = -1;
        for (int i = 0; i < N; i++)
            if (!taken[i] &&
                (best < 0 || slower(d[i], s[i], (uint64_t)i, d[best], s[best], (uint64_t)best)))
                best = i;
        taken[best] = true;
        assert_int_equal(r->v[j].pos, best);
        assert_int_equal(r->v[j].s, s[best]);
        assert_int_equal(r->v[j].e, s[best] + d[best]);
        assert_int_equal(r->v[j].excl_ns, d[best]); /* no children */
    }
    assert_int_equal(r->v[0].e - r->v[0].s, 490); /* the Max */
    slow_calls_free(c);
}

static void test_ties(void **state)
{
    (void)state;
    ooc_slowest *sl = ooc_slowest_new(0);
    /* equal durations at 10, 10, 30: the lower position first, whatever the
     * start (a rank done in memory may have a row out of start order) */
    feed(sl, flat(0, 0, 5, 10, 20));
    feed(sl, flat(0, 0, 2, 10, 20));
    feed(sl, flat(0, 0, 1, 30, 40));
    feed(sl, flat(0, 0, 0, 50, 51));
    slow_calls *c = ooc_slowest_take(sl);
    const slow_region *r = slow_calls_find(c, 0, 0);
    assert_int_equal(r->n, 4);
    uint64_t want[4] = {1, 2, 5, 0};
    for (int j = 0; j < 4; j++)
        assert_int_equal(r->v[j].pos, want[j]);
    slow_calls_free(c);
}

/* parent [0, 100]: children [10, 30] and [20, 50] (overlapping: their union
 * 40) and [60, 70], which has a child [62, 64]; a second stack (key 1). */
static void test_exclusive(void **state)
{
    (void)state;
    ooc_slowest *sl = ooc_slowest_new(0);
    feed(sl, (ooc_call){0, 0, 0, 0, 0, 0, 0, 0, 100, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 0, 1, 0, 1, 1, 0, 10, 30, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 0, 1, 0, 1, 1, 1, 20, 50, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 1, 0, 1, 0, 0, 1, 25, 35, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 0, 1, 0, 1, 1, 2, 60, 70, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 0, 2, 0, 2, 2, 0, 62, 64, -1, -1, false, -1});
    slow_calls *c = ooc_slowest_take(sl);
    const slow_region *a = slow_calls_find(c, 0, 0), *b = slow_calls_find(c, 0, 1),
                      *g = slow_calls_find(c, 0, 2);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(g);
    assert_int_equal(a->n, 2);
    assert_int_equal(a->v[0].excl_ns, 100 - 40 - 10);
    assert_int_equal(a->v[1].excl_ns, 10); /* the other stack's: no child */
    assert_int_equal(a->v[1].lane, 1);
    assert_int_equal(b->n, 3);
    assert_int_equal(b->v[0].pos, 1); /* 30 ns */
    assert_int_equal(b->v[0].excl_ns, 30);
    assert_int_equal(b->v[1].pos, 0);
    assert_int_equal(b->v[1].excl_ns, 20);
    assert_int_equal(b->v[2].pos, 2);
    assert_int_equal(b->v[2].excl_ns, 8);
    assert_int_equal(b->v[2].depth, 1);
    assert_int_equal(g->v[0].excl_ns, 2);
    slow_calls_free(c);
}

/* 100 regions within a budget whose share is the floor of 4096 calls: k
 * drops to 40 as the regions come, on two ranks, and every list is still
 * its region's 40 slowest. */
static void test_k_cap(void **state)
{
    (void)state;
    ooc_slowest *sl = ooc_slowest_new(1u << 20);
    for (size_t rank = 0; rank < 2; rank++)
        for (uint32_t reg = 0; reg < 50; reg++)
            for (uint64_t i = 0; i < 300; i++) {
                int64_t st = (int64_t)(i * 1000 + reg), d = (int64_t)((i * 37 + reg) % 300);
                feed(sl, flat(rank, reg, i, st, st + d));
            }
    slow_calls *c = ooc_slowest_take(sl);
    assert_int_equal(c->k, 4096 / 100);
    assert_int_equal(c->nregs, 100);
    assert_int_equal(c->nranks, 2);
    for (size_t i = 0; i < c->nregs; i++) {
        const slow_region *r = &c->regs[i];
        assert_int_equal(r->n, 40);
        assert_int_equal(r->seen, 300);
        /* (i * 37 + reg) % 300 over i < 300 takes every value once: the
         * 40 slowest are 299 down to 260 */
        for (size_t j = 0; j < r->n; j++)
            assert_int_equal(r->v[j].e - r->v[j].s, 299 - (int64_t)j);
    }
    slow_calls_free(c);
    /* no cap at all: 256 whatever the regions */
    sl = ooc_slowest_new(0);
    for (uint32_t reg = 0; reg < 100; reg++)
        for (uint64_t i = 0; i < 300; i++)
            feed(sl, flat(0, reg, i, (int64_t)i, (int64_t)(2 * i)));
    c = ooc_slowest_take(sl);
    assert_int_equal(c->k, SLOW_K_MAX);
    assert_int_equal(c->regs[99].n, SLOW_K_MAX);
    slow_calls_free(c);
}

static void test_lose(void **state)
{
    (void)state;
    ooc_slowest *sl = ooc_slowest_new(0);
    feed(sl, flat(0, 0, 0, 0, 5));
    ooc_slowest_lose(sl, "rank 1 is nested from its call ids");
    feed(sl, flat(2, 1, 0, 0, 7));
    slow_calls *c = ooc_slowest_take(sl);
    assert_int_equal(c->nranks, 2);
    assert_true(slow_calls_swept(c, 0));
    assert_false(slow_calls_swept(c, 1));
    assert_true(slow_calls_swept(c, 2));
    assert_string_equal(c->why, "rank 1 is nested from its call ids");
    assert_null(slow_calls_find(c, 1, 0));
    assert_non_null(slow_calls_find(c, 2, 1));
    slow_calls_free(c);
}

/* ------------------------------------------------------------ the wire */

static void put_sec(wire_w *w, void *ctx)
{
    ooc_slowest_put(w, ctx);
}

static bool get_sec(wire_r *r, void *ctx)
{
    slow_calls **out = ctx;
    slow_calls_free(*out);
    *out = ooc_slowest_get(r);
    return *out != NULL;
}

/* c on the wire after an empty profile; *len its bytes. */
static unsigned char *stream_of(const slow_calls *c, size_t *len)
{
    profile *p = profile_new("x.h5");
    wire_section sec = {put_sec, get_sec, (void *)c};
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile_section(fd, p, false, &sec), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)end);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    profile_free(p);
    *len = (size_t)end;
    return b;
}

static slow_calls *recv_of(const unsigned char *b, size_t len, wire_status *st)
{
    slow_calls *got = NULL;
    wire_section sec = {put_sec, get_sec, &got};
    sv_mem_src m = {b, len, 0, 0};
    wire_src src = {sv_mem_read, &m, NULL};
    profile *q = NULL;
    sv_error err;
    *st = wire_recv_section(&src, 1u << 26, &sec, &q, &err);
    profile_free(q);
    if (*st != WIRE_PROFILE) {
        slow_calls_free(got);
        return NULL;
    }
    return got;
}

static slow_calls *sample(void)
{
    ooc_slowest *sl = ooc_slowest_new(0);
    feed(sl, (ooc_call){0, 0, 0, 4, 2, 1, 7, -50, 100, -1, -1, false, -1});
    feed(sl, (ooc_call){0, 0, 1, SIZE_MAX, 0, 0, 3, 10, 30, -1, -1, false, -1});
    feed(sl, (ooc_call){1, 0, 0, 5, 0, 0, 0, 0, 9, -1, -1, false, -1});
    slow_calls *c = ooc_slowest_take(sl);
    assert_non_null(c);
    return c;
}

static void test_round_trip(void **state)
{
    (void)state;
    slow_calls *c = sample();
    snprintf(c->why, sizeof c->why, "why not");
    size_t len;
    unsigned char *b = stream_of(c, &len);
    wire_status st;
    slow_calls *d = recv_of(b, len, &st);
    assert_int_equal(st, WIRE_PROFILE);
    assert_non_null(d);
    assert_int_equal(d->k, c->k);
    assert_string_equal(d->why, "why not");
    assert_int_equal(d->nranks, 2);
    assert_int_equal(d->nregs, c->nregs);
    for (size_t i = 0; i < c->nregs; i++) {
        const slow_region *x = &c->regs[i], *y = &d->regs[i];
        assert_int_equal(y->rank_index, x->rank_index);
        assert_int_equal(y->region, x->region);
        assert_int_equal(y->seen, x->seen);
        assert_int_equal(y->n, x->n);
        for (size_t j = 0; j < x->n; j++) {
            assert_int_equal(y->v[j].s, x->v[j].s);
            assert_int_equal(y->v[j].e, x->v[j].e);
            assert_int_equal(y->v[j].excl_ns, x->v[j].excl_ns);
            assert_int_equal(y->v[j].pos, x->v[j].pos);
            assert_int_equal(y->v[j].lane, x->v[j].lane);
            assert_int_equal(y->v[j].depth, x->v[j].depth);
        }
    }
    assert_int_equal(slow_calls_find(d, 0, 0)->v[0].lane, SLOW_NO_LANE);
    assert_int_equal(slow_calls_find(d, 0, 1)->v[0].s, -50);
    assert_int_equal(slow_calls_find(d, 0, 1)->v[0].lane, 4);
    assert_int_equal(slow_calls_find(d, 0, 1)->v[0].depth, 2);
    /* cut anywhere: broken, never a crash */
    for (size_t cut = 0; cut + 1 < len; cut++) {
        slow_calls *e = recv_of(b, cut, &st);
        assert_null(e);
        assert_int_not_equal(st, WIRE_PROFILE);
    }
    free(b);
    slow_calls_free(d);
    slow_calls_free(c);
}

/* One damage to a good product, put as it is, must be refused. */
static void refused(void (*damage)(slow_calls *c))
{
    slow_calls *c = sample();
    damage(c);
    size_t len;
    unsigned char *b = stream_of(c, &len);
    wire_status st;
    slow_calls *d = recv_of(b, len, &st);
    assert_null(d);
    assert_int_equal(st, WIRE_BROKEN);
    free(b);
    slow_calls_free(c);
}

static void k_zero(slow_calls *c)
{
    c->k = 0;
}
static void k_big(slow_calls *c)
{
    c->k = SLOW_K_MAX + 1;
}
static void short_list(slow_calls *c)
{
    c->regs[0].seen = 5; /* a list of 5 wanted, 1 sent */
}
static void unsorted(slow_calls *c)
{
    slow_region *r = &c->regs[0];
    r->v = realloc(r->v, 2 * sizeof *r->v);
    r->v[1] = r->v[0];
    r->v[1].e += 1; /* slower than the first */
    r->n = r->seen = 2;
}
static void excl_over(slow_calls *c)
{
    c->regs[0].v[0].excl_ns = slow_call_dur(&c->regs[0].v[0]) + 1;
}
static void regions_unordered(slow_calls *c)
{
    slow_region t = c->regs[0];
    c->regs[0] = c->regs[1];
    c->regs[1] = t;
}
static void rank_not_swept(slow_calls *c)
{
    c->nranks = 1; /* rank 1's list stays */
}
static void ranks_unordered(slow_calls *c)
{
    c->ranks[1] = c->ranks[0];
}

static void test_malformed(void **state)
{
    (void)state;
    refused(k_zero);
    refused(k_big);
    refused(short_list);
    refused(unsorted);
    refused(excl_over);
    refused(regions_unordered);
    refused(rank_not_swept);
    refused(ranks_unordered);
}

/* ------------------------------------------------------------ the skeleton */

/* Rank 0: regions a (10 calls), b (summary-only); rank 1: a (3 calls). */
static profile *skeleton(void)
{
    profile *p = profile_new("x.h5");
    rank_data *r0 = profile_add_rank(p, 0);
    region *a = rank_add_region(r0, "a"), *b = rank_add_region(r0, "b");
    a->has_event_data = true;
    a->st.num_calls = 10;
    (void)b;
    rank_data *r1 = profile_add_rank(p, 1);
    region *a1 = rank_add_region(r1, "a");
    a1->has_event_data = true;
    a1->st.num_calls = 3;
    return p;
}

static slow_calls *skel_product(uint64_t n0, uint64_t n1, uint64_t lane_no)
{
    ooc_slowest *sl = ooc_slowest_new(0);
    for (uint64_t i = 0; i < n0; i++)
        feed(sl, (ooc_call){0, 0, 0, lane_no, 0, 0, i, (int64_t)i * 10, (int64_t)i * 10 + 5, -1, -1,
                            false, -1});
    for (uint64_t i = 0; i < n1; i++)
        feed(sl, (ooc_call){1, 0, 0, 0, 0, 0, i, (int64_t)i * 10, (int64_t)i * 10 + 5, -1, -1,
                            false, -1});
    return ooc_slowest_take(sl);
}

static void test_valid(void **state)
{
    (void)state;
    profile *p = skeleton();
    slow_calls *c = skel_product(10, 3, 1);
    assert_true(ooc_slowest_valid(c, p, 2));
    assert_false(ooc_slowest_valid(c, p, 1)); /* lane 1 of 1 lane */
    slow_calls_free(c);
    c = skel_product(9, 3, 0); /* a count that is not the statistic */
    assert_false(ooc_slowest_valid(c, p, 2));
    slow_calls_free(c);
    c = skel_product(10, 0, 0); /* rank 1 not swept, and no why */
    assert_false(slow_calls_swept(c, 1));
    assert_false(ooc_slowest_valid(c, p, 2));
    snprintf(c->why, sizeof c->why, "lost");
    assert_true(ooc_slowest_valid(c, p, 2));
    c->ranks = realloc(c->ranks, 2 * sizeof *c->ranks);
    c->ranks[c->nranks++] = 1; /* swept, yet a with 3 calls has no list */
    assert_false(ooc_slowest_valid(c, p, 2));
    slow_calls_free(c);
    c = skel_product(10, 3, 0);
    c->regs[0].region = 1; /* the summary-only region */
    assert_false(ooc_slowest_valid(c, p, 2));
    slow_calls_free(c);
    /* the lookup from a region of the profile */
    c = skel_product(10, 3, 0);
    p->slowest = c;
    assert_ptr_equal(slow_calls_of(p, p->ranks[1].regions[0]), &c->regs[1]);
    assert_null(slow_calls_of(p, p->ranks[0].regions[1]));
    profile_free(p);
}

/* ------------------------------------------------------------ a rank in memory */

static void set_calls(region *r, size_t n, const int64_t *se, const int64_t *ids)
{
    r->has_event_data = true;
    r->n = n;
    r->start_ns = malloc(n * sizeof *r->start_ns);
    r->end_ns = malloc(n * sizeof *r->end_ns);
    r->call_ids = malloc(n * sizeof *r->call_ids);
    r->parent_ids = malloc(n * sizeof *r->parent_ids);
    assert_true(r->start_ns && r->end_ns && r->call_ids && r->parent_ids);
    for (size_t i = 0; i < n; i++) {
        r->start_ns[i] = se[2 * i];
        r->end_ns[i] = se[2 * i + 1];
        r->call_ids[i] = ids[2 * i];
        r->parent_ids[i] = ids[2 * i + 1];
    }
}

/* A rank nested from its call ids, b's row out of start order: a [0, 100]
 * holds b [10, 30] (holding b [20, 25]), b [50, 60] and b [70, 80].  The
 * lists by hand: b's slowest [10, 30] (exclusive 15), then of the equal
 * durations the lower position first ([70, 80] at 0 before [50, 60] at 3,
 * whatever their starts), then [20, 25]; lanes and depths from the index,
 * the lane named in the map; a region map puts the lists at its indices. */
static void test_lanes_hook(void **state)
{
    (void)state;
    profile *p = profile_new("ids");
    rank_data *rk = profile_add_rank(p, 4);
    region *a = rank_add_region(rk, "a"), *b = rank_add_region(rk, "b");
    assert_true(a && b);
    const int64_t sa[] = {0, 100}, ia[] = {1, -1};
    const int64_t sb[] = {70, 80, 10, 30, 20, 25, 50, 60}, ib[] = {5, 1, 2, 1, 4, 2, 3, 1};
    set_calls(a, 1, sa, ia);
    set_calls(b, 4, sb, ib);
    sv_error err;
    assert_int_equal(profile_finish(p, &err), SV_OK);
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    ooc_map m;
    assert_true(ooc_map_from_lanes(ix, &m));
    const uint32_t regmap[] = {2, 5}; /* the skeleton's a and b */
    for (int mapped = 0; mapped < 2; mapped++) {
        ooc_slowest *sl = ooc_slowest_new(0);
        ooc_slowest_use_map(sl, &m);
        assert_true(ooc_slowest_lanes(sl, 0, ix, 0, mapped ? regmap : NULL));
        slow_calls *c = ooc_slowest_take(sl);
        assert_non_null(c);
        assert_int_equal(c->nranks, 1);
        assert_true(slow_calls_swept(c, 0));
        assert_int_equal(c->nregs, 2);
        const slow_region *ra = slow_calls_find(c, 0, mapped ? 2 : 0);
        const slow_region *rb = slow_calls_find(c, 0, mapped ? 5 : 1);
        assert_non_null(ra);
        assert_non_null(rb);
        assert_int_equal(ra->seen, 1);
        assert_int_equal(ra->v[0].excl_ns, 100 - 20 - 10 - 10);
        assert_int_equal(ra->v[0].depth, 0);
        assert_int_equal(rb->seen, 4);
        assert_int_equal(rb->n, 4);
        const uint64_t pos[] = {1, 0, 3, 2};
        const int64_t excl[] = {15, 10, 10, 5};
        const uint32_t depth[] = {1, 1, 1, 2};
        size_t ml = ooc_map_find_lane(&m, 0, LANE_RANK, -1);
        assert_int_not_equal(ml, SIZE_MAX);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(rb->v[i].pos, pos[i]);
            assert_int_equal(rb->v[i].s, sb[2 * pos[i]]);
            assert_int_equal(rb->v[i].e, sb[2 * pos[i] + 1]);
            assert_int_equal(rb->v[i].excl_ns, excl[i]);
            assert_int_equal(rb->v[i].depth, depth[i]);
            assert_int_equal(rb->v[i].lane, ml);
        }
        slow_calls_free(c);
    }
    /* without a map the lanes are not known; a filter that leaves b out: no lane */
    ooc_slowest *sl = ooc_slowest_new(0);
    assert_true(ooc_slowest_lanes(sl, 0, ix, 0, NULL));
    slow_calls *c = ooc_slowest_take(sl);
    assert_int_equal(slow_calls_find(c, 0, 1)->v[0].lane, SLOW_NO_LANE);
    slow_calls_free(c);
    ooc_map_free(&m);
    lanes_free(ix);
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_exclude(&f, "^b$", &err), SV_OK);
    assert_int_equal(lanes_build(p, &f, &ix, &err), SV_OK);
    assert_true(ooc_map_from_lanes(ix, &m));
    sl = ooc_slowest_new(0);
    ooc_slowest_use_map(sl, &m);
    assert_true(ooc_slowest_lanes(sl, 0, ix, 0, NULL));
    c = ooc_slowest_take(sl);
    const slow_region *rb = slow_calls_find(c, 0, 1);
    assert_int_equal(rb->seen, 4); /* counted, as the sweep counts a filtered call */
    for (size_t i = 0; i < rb->n; i++)
        assert_int_equal(rb->v[i].lane, SLOW_NO_LANE);
    assert_int_not_equal(slow_calls_find(c, 0, 0)->v[0].lane, SLOW_NO_LANE);
    slow_calls_free(c);
    ooc_map_free(&m);
    lanes_free(ix);
    filter_free(&f);
    profile_free(p);
}

/* A swept call keeps its lane while a lane added later sorts before it and
 * moves its index (ooc_map_lane): the list names the lane the call was on. */
static void test_lane_moved(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 1000, 2));
    assert_int_equal(ooc_map_lane(&m, 0, LANE_THREAD, 9), 0);
    size_t l5 = ooc_map_lane(&m, 0, LANE_THREAD, 5); /* row 9 moves to 1 */
    assert_int_equal(l5, 0);
    ooc_slowest *sl = ooc_slowest_new(0);
    ooc_slowest_use_map(sl, &m);
    feed(sl, (ooc_call){0, 0, 0, l5, 0, 0, 0, 0, 100, -1, -1, false, -1});
    size_t l1 =
        ooc_map_lane(&m, 0, LANE_THREAD, 1); /* row 1 sorts first: rows 5 and 9 move to 1 and 2 */
    assert_int_equal(l1, 0);
    feed(sl, (ooc_call){0, 1, 0, l1, 0, 0, 1, 10, 50, -1, -1, false, -1});
    slow_calls *c = ooc_slowest_take(sl);
    assert_non_null(c);
    const slow_region *r = slow_calls_find(c, 0, 0);
    assert_non_null(r);
    assert_int_equal(r->n, 2);
    assert_int_equal(r->v[0].s, 0); /* the slower, on row 5 */
    assert_int_equal(r->v[0].lane, ooc_map_find_lane(&m, 0, LANE_THREAD, 5));
    assert_int_equal(r->v[1].lane, ooc_map_find_lane(&m, 0, LANE_THREAD, 1));
    slow_calls_free(c);
    ooc_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_k),      cmocka_unit_test(test_ties),
        cmocka_unit_test(test_exclusive),  cmocka_unit_test(test_k_cap),
        cmocka_unit_test(test_lose),       cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_malformed),  cmocka_unit_test(test_valid),
        cmocka_unit_test(test_lanes_hook), cmocka_unit_test(test_lane_moved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
