/* picker: a modal list to choose one item from (the tree's scope: all
 * ranks, a rank, a thread), with the cursor keys, g / G, Enter, Esc and the
 * search (/ then n N jump to the next item whose label matches). */
#ifndef SV_PICKER_H
#define SV_PICKER_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/ui.h"

typedef struct picker {
    bool open;
    size_t n, cur, top;
    int page; /* rows of the last frame */
} picker;

/* The label of item i (not escaped: grid_put_text escapes it). */
typedef void (*picker_label_fn)(size_t i, char *buf, size_t len, void *user);

enum picker_result { PICK_NONE, PICK_MOVED, PICK_CHOSEN, PICK_CLOSED };

void picker_open(picker *p, size_t n, size_t cur);

/* A command while the picker is open (it takes every command). */
enum picker_result picker_cmd(picker *p, ui_ctx *ctx, ui_cmd cmd, picker_label_fn label,
                              void *user);

/* Draws it over area with a title line. */
void picker_draw(picker *p, ui_ctx *ctx, rect area, const char *title, picker_label_fn label,
                 void *user);

#endif
