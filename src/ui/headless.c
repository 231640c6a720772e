/* headless: replays --keys on a grid of --size; app_run prints the final
 * screen. */
#include "headless.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"

typedef struct headless_state {
    int *keys;
    long nkeys, pos;
    int cols, rows;
} headless_state;

static int headless_next_key(void *state, ui_ctx *ctx)
{
    headless_state *h = state;
    if (h->pos >= h->nkeys)
        return SVK_NONE;
    int key = h->keys[h->pos++];
    /* There is no pointer: mouse keys act at the middle of the view area. */
    if (key == SVK_CLICK || key == SVK_WHEEL_UP || key == SVK_WHEEL_DOWN) {
        ctx->mouse_x = ctx->view_area.x + ctx->view_area.w / 2;
        ctx->mouse_y = ctx->view_area.y + ctx->view_area.h / 2;
    }
    return key;
}

static void headless_present(void *state, const ui_ctx *ctx)
{
    (void)state;
    (void)ctx;
}

static void headless_size(void *state, int *cols, int *rows)
{
    const headless_state *h = state;
    *cols = h->cols;
    *rows = h->rows;
}

int headless_open(ui_backend *be, const app_options *o, char *msg, size_t msglen)
{
    headless_state *h = calloc(1, sizeof *h);
    size_t max = (o->keys ? strlen(o->keys) : 0) + 1; /* each key takes a byte or more */
    int *keys = h ? malloc(max * sizeof *keys) : NULL;
    if (!keys) {
        free(h);
        snprintf(msg, msglen, "out of memory");
        return 1;
    }
    long n = keys_parse(o->keys ? o->keys : "", keys, max, msg, msglen);
    if (n < 0) {
        free(keys);
        free(h);
        return 2;
    }
    h->keys = keys;
    h->nkeys = n;
    h->cols = o->cols > 0 ? o->cols : 80;
    h->rows = o->rows > 0 ? o->rows : 24;
    *be = (ui_backend){h, headless_next_key, headless_present, headless_size};
    /* h now belongs to be (headless_close frees it); cppcheck does not follow
     * the pointer into the compound literal. */
    // cppcheck-suppress memleak
    return 0;
}

void headless_close(ui_backend *be)
{
    headless_state *h = be->state;
    if (h)
        free(h->keys);
    free(h);
    be->state = NULL;
}
