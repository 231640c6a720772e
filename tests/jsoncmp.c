/* jsoncmp: `jsoncmp OUT EXPECTED` compares scopeview's --json output (OUT)
 * with an expected file (a JSON array of region objects, as in
 * ../shared/data/upstream/expected): every region of EXPECTED is in OUT
 * (by name and rank) and none more; every key of an expected region that
 * does not start with '_' has the same value in OUT: numbers to a relative
 * 1e-9, null for null, strings, booleans and arrays alike.  Exit 0 when
 * they agree, else 1 with one line per difference on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_min.h"
#include "testutil.h"

static jm_node *load(const char *path)
{
    size_t len;
    char *text = sv_slurp(path, &len), msg[128];
    if (!text) {
        fprintf(stderr, "jsoncmp: %s: cannot read\n", path);
        return NULL;
    }
    jm_node *n = jm_parse(text, len, msg, sizeof msg);
    if (!n)
        fprintf(stderr, "jsoncmp: %s: %s\n", path, msg);
    free(text);
    return n;
}

static bool same(const jm_node *a, const jm_node *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case JM_NULL:
        return true;
    case JM_BOOL:
        return a->boolean == b->boolean;
    case JM_NUMBER: {
        double s = fabs(a->number) > fabs(b->number) ? fabs(a->number) : fabs(b->number);
        return fabs(a->number - b->number) <= 1e-9 * s + 1e-15;
    }
    case JM_STRING:
        return a->string_len == b->string_len && memcmp(a->string, b->string, a->string_len) == 0;
    default:
        if (a->count != b->count)
            return false;
        for (size_t i = 0; i < a->count; i++)
            if (!same(a->items[i], b->items[i]))
                return false;
        return true;
    }
}

static const jm_node *find(const jm_node *regions, const char *name, double rank)
{
    for (size_t i = 0; i < regions->count; i++) {
        const jm_node *r = regions->items[i];
        double k;
        if (jm_string(jm_get(r, "name")) && strcmp(jm_string(jm_get(r, "name")), name) == 0 &&
            jm_number(jm_get(r, "rank"), &k) && k == rank)
            return r;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: jsoncmp OUT EXPECTED\n");
        return 2;
    }
    jm_node *out = load(argv[1]), *exp = load(argv[2]);
    if (!out || !exp)
        return 1;
    const jm_node *regions = jm_get(out, "regions");
    int bad = 0;
    if (!regions || regions->type != JM_ARRAY || exp->type != JM_ARRAY) {
        fprintf(stderr, "jsoncmp: no regions array\n");
        return 1;
    }
    if (regions->count != exp->count) {
        fprintf(stderr, "jsoncmp: %zu regions, expected %zu\n", regions->count, exp->count);
        bad = 1;
    }
    for (size_t i = 0; i < exp->count; i++) {
        const jm_node *e = exp->items[i];
        const char *name = jm_string(jm_get(e, "name"));
        double rank = -1;
        jm_number(jm_get(e, "rank"), &rank);
        const jm_node *r = name ? find(regions, name, rank) : NULL;
        if (!r) {
            fprintf(stderr, "jsoncmp: region %s rank %g missing\n", name ? name : "?", rank);
            bad = 1;
            continue;
        }
        for (size_t k = 0; k < e->count; k++) {
            const jm_node *v = e->items[k];
            if (v->key[0] == '_')
                continue;
            const jm_node *g = jm_get(r, v->key);
            if (!g || !same(g, v)) {
                fprintf(stderr, "jsoncmp: region %s rank %g: %s differs%s\n", name, rank, v->key,
                        g ? "" : " (absent)");
                bad = 1;
            }
        }
    }
    jm_free(out);
    jm_free(exp);
    return bad;
}
