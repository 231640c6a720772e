/* keys: key codes, the --keys string syntax and key labels (the key →
 * command map is in commands.h). */
#ifndef SV_KEYS_H
#define SV_KEYS_H

#include <stddef.h>

#include "commands.h"

/* Keys: a Unicode code point, or one of these (above the Unicode range). */
enum sv_key {
    SVK_NONE = 0,
    SVK_BASE = 0x110000,
    SVK_ENTER,
    SVK_ESC,
    SVK_TAB,
    SVK_BTAB,
    SVK_LEFT,
    SVK_RIGHT,
    SVK_UP,
    SVK_DOWN,
    SVK_PGUP,
    SVK_PGDN,
    SVK_HOME,
    SVK_END,
    SVK_F1,
    SVK_BACKSPACE,
    SVK_RESIZE,
    SVK_WHEEL_UP, /* mouse wheel, at the last mouse position */
    SVK_WHEEL_DOWN,
    SVK_CLICK, /* left click, at the last mouse position */
    SVK_READY  /* background work done (terminal poll); headless <Ready> waits for it */
};

/* The key named by s[0..len): one character ("q", "<"), or a name of the
 * --keys syntax without its <> ("Enter", "S-Tab", "Space"; any case).
 * SVK_NONE when it is neither.  The command table and the config file
 * write keys this way. */
int keys_token(const char *s, size_t len);

/* Parses a --keys string ("jj<Enter>/solve<Enter>n") into key codes.
 * Returns the number of keys, or -1 on an unknown <Name> (msg says which). */
long keys_parse(const char *s, int *out, size_t max, char *msg, size_t msglen);

/* A short label for a key ("Enter", "q", "F1") for the help screen. */
const char *keys_label(int key, char *buf, size_t len);

#endif
