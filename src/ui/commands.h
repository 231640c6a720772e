/* commands: the one command table (commands.def, views.def) and the key map
 * built from it.
 *
 * Every command is declared once in commands.def with its name, its default
 * keys in each scope and its help line; the enum below, the default key map,
 * the help screen (help.c) and the man page's key lists (`make man-keys`)
 * all come from that table.  The key map is data in the ui context, so the
 * config file can rebind keys. */
#ifndef SV_COMMANDS_H
#define SV_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The views, by id: VIEW_TIMELINE, VIEW_TREE, ... (views.def order, which
 * is also their index in the registry). */
typedef enum view_id {
#define VIEW(id, name, ops, key) VIEW_##id,
#include "views.def"
#undef VIEW
    VIEW_COUNT
} view_id;

/* Where a key binding applies: one view (SCOPE_TIMELINE == VIEW_TIMELINE,
 * ...), the source pane, the help screen, or every view. */
typedef enum key_scope {
#define VIEW(id, name, ops, key) SCOPE_##id,
#include "views.def"
#undef VIEW
    SCOPE_SOURCE,
    SCOPE_HELP,
    SCOPE_GLOBAL,
    SCOPE_COUNT
} key_scope;

/* The commands.  The view commands come first: CMD_VIEW(id) opens view id. */
typedef enum ui_cmd {
    CMD_NONE,
#define VIEW(id, name, ops, key) CMD_VIEW_##id,
#include "views.def"
#undef VIEW
#define CMD(id, name, scope, keys, help) CMD_##id,
#define KEY(scope, id, keys, help)
#define NOTE(scope, label, text)
#define VIEW_KEYS(scope, help)
#include "commands.def"
#undef CMD
#undef KEY
#undef NOTE
#undef VIEW_KEYS
    CMD_COUNT
} ui_cmd;

#define CMD_VIEW(id) ((ui_cmd)(CMD_NONE + 1 + (int)(id)))
#define CMD_IS_VIEW(c) ((c) > CMD_NONE && (int)(c) <= (int)VIEW_COUNT)
#define CMD_VIEW_ID(c) ((view_id)((int)(c)-1))

/* One row of the table, in commands.def order (then the view commands). */
typedef enum cmd_row_kind { ROW_CMD, ROW_KEY, ROW_NOTE, ROW_VIEW_KEYS } cmd_row_kind;
typedef struct cmd_row {
    cmd_row_kind kind;
    key_scope scope;
    ui_cmd cmd;       /* CMD_NONE for notes */
    const char *keys; /* space-separated key names; a note's label */
    const char *help; /* NULL: no help line; "": on the line above */
} cmd_row;

const cmd_row *commands_table(size_t *n);

/* "zoom-in" for CMD_ZOOM_IN, "view-tree" for CMD_VIEW_TREE; NULL if none. */
const char *command_name(ui_cmd cmd);
/* The command named name ("none" gives CMD_NONE); -1 if there is none. */
int command_lookup(const char *name);
/* "global", "timeline", ..., "source", "help"; scope_lookup gives -1 for an
 * unknown name ("generic" is tig's word for global, also accepted). */
const char *scope_name(key_scope scope);
int scope_lookup(const char *name);

/* --- the key map --- */

#define KEYMAP_MAX 512

typedef struct keymap_entry {
    int key;
    unsigned short scope;
    unsigned short cmd; /* CMD_NONE: the key is unbound here (shadows GLOBAL) */
} keymap_entry;

typedef struct keymap {
    size_t n;
    keymap_entry e[KEYMAP_MAX];
} keymap;

/* The defaults of the table.  Returns false (and stops) when the table has
 * a key name keys_token cannot read: test_commands keeps that from happening. */
bool keymap_defaults(keymap *km);
/* Binds key in scope to cmd, replacing its binding there (CMD_NONE: unbound,
 * which shadows a GLOBAL binding).  False when the map is full. */
bool keymap_bind(keymap *km, key_scope scope, int key, ui_cmd cmd);
/* The binding of key in scope itself, or NULL. */
const keymap_entry *keymap_find(const keymap *km, key_scope scope, int key);
/* The command for key in scope: scope's own binding, else the GLOBAL one. */
ui_cmd keymap_lookup(const keymap *km, key_scope scope, int key);
/* The keys bound to cmd in scope itself (in binding order); returns how many
 * (at most max stored). */
size_t keymap_keys(const keymap *km, key_scope scope, ui_cmd cmd, int *out, size_t max);

/* --- help lines, for the help screen and the man page --- */

typedef struct help_line {
    char keys[96]; /* key labels separated by spaces: "Left Right h l" */
    char text[512];
    bool note; /* a NOTE row: keys is a label, not key names */
} help_line;

/* The help lines of scope, in table order, with the keys km binds (the
 * defaults or the user's); returns how many (at most max stored). */
size_t commands_help(const keymap *km, key_scope scope, help_line *out, size_t max);
/* The same, the view-keys line without the views of bit v of hidden (a
 * compare view outside --diff opens with no key, so the help names none). */
size_t commands_help_shown(const keymap *km, key_scope scope, uint32_t hidden, help_line *out,
                           size_t max);

#endif
