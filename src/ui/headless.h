/* headless: the backend of --batch screens.  Keys come from --keys, the
 * screen is a grid of --size, and nothing touches a terminal: it works with
 * stdout a file and TERM unset. */
#ifndef SV_HEADLESS_H
#define SV_HEADLESS_H

#include <stddef.h>

#include "ui.h"

/* Parses o->keys and fills be.  Returns 0, or an exit status (2 for a bad
 * --keys string) with the reason in msg. */
int headless_open(ui_backend *be, const app_options *o, char *msg, size_t msglen);
void headless_close(ui_backend *be);

#endif
