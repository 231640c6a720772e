/* commands: the command table, command and scope names, the key map and the
 * help lines, all from commands.def and views.def. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "keys.h"

static const cmd_row table[] = {
#define CMD(id, name, scope, keys, help) {ROW_CMD, SCOPE_##scope, CMD_##id, keys, help},
#define KEY(scope, id, keys, help) {ROW_KEY, SCOPE_##scope, CMD_##id, keys, help},
#define NOTE(scope, label, text) {ROW_NOTE, SCOPE_##scope, CMD_NONE, label, text},
#define VIEW_KEYS(scope, help) {ROW_VIEW_KEYS, SCOPE_##scope, CMD_NONE, NULL, help},
#include "commands.def"
#undef CMD
#undef KEY
#undef NOTE
#undef VIEW_KEYS
#define VIEW(id, name, ops, key) {ROW_CMD, SCOPE_GLOBAL, CMD_VIEW_##id, key, NULL},
#include "views.def"
#undef VIEW
};

#define NROWS (sizeof table / sizeof table[0])

/* Indexed by ui_cmd. */
static const char *const cmd_names[CMD_COUNT] = {
    [CMD_NONE] = "none",
#define VIEW(id, name, ops, key) [CMD_VIEW_##id] = "view-" name,
#include "views.def"
#undef VIEW
#define CMD(id, name, scope, keys, help) [CMD_##id] = name,
#define KEY(scope, id, keys, help)
#define NOTE(scope, label, text)
#define VIEW_KEYS(scope, help)
#include "commands.def"
#undef CMD
#undef KEY
#undef NOTE
#undef VIEW_KEYS
};

static const char *const scope_names[SCOPE_COUNT] = {
#define VIEW(id, name, ops, key) [SCOPE_##id] = name,
#include "views.def"
#undef VIEW
    [SCOPE_SOURCE] = "source",
    [SCOPE_HELP] = "help",
    [SCOPE_GLOBAL] = "global",
};

const cmd_row *commands_table(size_t *n)
{
    *n = NROWS;
    return table;
}

const char *command_name(ui_cmd cmd)
{
    return (int)cmd >= 0 && cmd < CMD_COUNT ? cmd_names[cmd] : NULL;
}

int command_lookup(const char *name)
{
    for (int c = 0; name && c < CMD_COUNT; c++)
        if (cmd_names[c] && strcmp(cmd_names[c], name) == 0)
            return c;
    return -1;
}

const char *scope_name(key_scope scope)
{
    return (int)scope >= 0 && scope < SCOPE_COUNT ? scope_names[scope] : NULL;
}

int scope_lookup(const char *name)
{
    if (name && strcmp(name, "generic") == 0)
        return SCOPE_GLOBAL;
    for (int s = 0; name && s < SCOPE_COUNT; s++)
        if (strcmp(scope_names[s], name) == 0)
            return s;
    return -1;
}

/* --- the key map --- */

const keymap_entry *keymap_find(const keymap *km, key_scope scope, int key)
{
    for (size_t i = 0; km && i < km->n; i++)
        if (km->e[i].key == key && km->e[i].scope == scope)
            return &km->e[i];
    return NULL;
}

bool keymap_bind(keymap *km, key_scope scope, int key, ui_cmd cmd)
{
    keymap_entry *e = (keymap_entry *)keymap_find(km, scope, key);
    if (!e) {
        if (km->n >= KEYMAP_MAX)
            return false;
        e = &km->e[km->n++];
        e->key = key;
        e->scope = (unsigned short)scope;
    }
    e->cmd = (unsigned short)cmd;
    return true;
}

ui_cmd keymap_lookup(const keymap *km, key_scope scope, int key)
{
    if (key == SVK_NONE)
        return CMD_NONE;
    const keymap_entry *e = keymap_find(km, scope, key);
    if (!e && scope != SCOPE_GLOBAL)
        e = keymap_find(km, SCOPE_GLOBAL, key);
    return e ? (ui_cmd)e->cmd : CMD_NONE;
}

size_t keymap_keys(const keymap *km, key_scope scope, ui_cmd cmd, int *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; km && i < km->n; i++)
        if (km->e[i].scope == scope && km->e[i].cmd == cmd && cmd != CMD_NONE) {
            if (n < max)
                out[n] = km->e[i].key;
            n++;
        }
    return n;
}

/* Binds every key of a row's "Left h" list. */
static bool bind_row(keymap *km, const cmd_row *r)
{
    const char *s = r->keys;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t len = strcspn(s, " ");
        if (len == 0)
            break;
        int key = keys_token(s, len);
        if (key == SVK_NONE || !keymap_bind(km, r->scope, key, r->cmd))
            return false;
        s += len;
    }
    return true;
}

bool keymap_defaults(keymap *km)
{
    km->n = 0;
    for (size_t i = 0; i < NROWS; i++)
        if ((table[i].kind == ROW_CMD || table[i].kind == ROW_KEY) && !bind_row(km, &table[i]))
            return false;
    return true;
}

/* --- help lines --- */

/* A group is at most one row per view (the view keys' line) */
#define GROUP_MAX (VIEW_COUNT > 8 ? VIEW_COUNT : 8)
#define GROUP_KEYS 8

/* The rows of one help line: a row and the "" rows after it. */
typedef struct line_group {
    size_t nrows;
    int keys[GROUP_MAX][GROUP_KEYS];
    size_t nkeys[GROUP_MAX];
} line_group;

static void add_label(char *buf, size_t len, int key)
{
    char label[32];
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                 keys_label(key, label, sizeof label));
}

/* Rows with as many keys each read across ("Left Right h l" for Left h and
 * Right l); others one after the other ("+ = -"). */
static void group_label(const line_group *g, char *buf, size_t len)
{
    buf[0] = '\0';
    bool same = true;
    for (size_t r = 1; r < g->nrows; r++)
        same = same && g->nkeys[r] == g->nkeys[0];
    if (same) {
        for (size_t k = 0; k < g->nkeys[0]; k++)
            for (size_t r = 0; r < g->nrows; r++)
                add_label(buf, len, g->keys[r][k]);
        return;
    }
    for (size_t r = 0; r < g->nrows; r++)
        for (size_t k = 0; k < g->nkeys[r]; k++)
            add_label(buf, len, g->keys[r][k]);
}

static void group_add(line_group *g, const keymap *km, const cmd_row *r)
{
    if (g->nrows >= GROUP_MAX)
        return;
    size_t n = keymap_keys(km, r->scope, r->cmd, g->keys[g->nrows], GROUP_KEYS);
    g->nkeys[g->nrows++] = n < GROUP_KEYS ? n : GROUP_KEYS;
}

/* "1 timeline, 2 tree, ...": the view keys and their views. */
static void view_keys_line(const keymap *km, key_scope scope, const char *help, uint32_t hidden,
                           help_line *out)
{
    line_group g = {0};
    char list[256] = "";
    for (int v = 0; v < VIEW_COUNT; v++) {
        if (hidden >> v & 1u)
            continue;
        cmd_row r = {ROW_CMD, scope, CMD_VIEW(v), NULL, NULL};
        size_t before = g.nrows;
        group_add(&g, km, &r);
        if (g.nrows == before)
            break; /* no room: never another view's key under this one's name */
        char one[96] = "";
        for (size_t k = 0; k < g.nkeys[g.nrows - 1]; k++)
            add_label(one, sizeof one, g.keys[g.nrows - 1][k]);
        if (g.nkeys[g.nrows - 1]) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s %s", used ? ", " : "", one,
                     scope_names[v]);
        }
    }
    group_label(&g, out->keys, sizeof out->keys);
    snprintf(out->text, sizeof out->text, "%s: %s", help, list);
    out->note = false;
}

size_t commands_help(const keymap *km, key_scope scope, help_line *out, size_t max)
{
    return commands_help_shown(km, scope, 0, out, max);
}

size_t commands_help_shown(const keymap *km, key_scope scope, uint32_t hidden, help_line *out,
                           size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const cmd_row *r = &table[i];
        if (r->scope != scope || !r->help || r->help[0] == '\0')
            continue;
        help_line line = {.note = r->kind == ROW_NOTE};
        if (r->kind == ROW_NOTE) {
            snprintf(line.keys, sizeof line.keys, "%s", r->keys);
            snprintf(line.text, sizeof line.text, "%s", r->help);
        } else if (r->kind == ROW_VIEW_KEYS) {
            view_keys_line(km, scope, r->help, hidden, &line);
        } else {
            line_group g = {0};
            group_add(&g, km, r);
            for (size_t j = i + 1; j < NROWS && table[j].help && table[j].help[0] == '\0'; j++)
                if (table[j].scope == scope)
                    group_add(&g, km, &table[j]);
            group_label(&g, line.keys, sizeof line.keys);
            snprintf(line.text, sizeof line.text, "%s", r->help);
        }
        if (n < max)
            out[n] = line;
        n++;
    }
    return n;
}
