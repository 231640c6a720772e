/* keys: the global key table, --keys parsing and key labels. */
#include "keys.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "grid.h"
#include "text.h"

/* Ended by {0, CMD_NONE}.  Views put their own meanings first in their
 * table; keys_lookup falls back to this one. */
const key_binding keys_global[] = {
    {'q', CMD_QUIT},
    {'?', CMD_HELP},
    {SVK_F1, CMD_HELP},
    {SVK_ESC, CMD_BACK},
    {SVK_LEFT, CMD_LEFT},
    {'h', CMD_LEFT},
    {SVK_RIGHT, CMD_RIGHT},
    {'l', CMD_RIGHT},
    {SVK_UP, CMD_UP},
    {'k', CMD_UP},
    {SVK_DOWN, CMD_DOWN},
    {'j', CMD_DOWN},
    {SVK_PGUP, CMD_PGUP},
    {SVK_PGDN, CMD_PGDN},
    {SVK_HOME, CMD_HOME},
    {SVK_END, CMD_END},
    {SVK_ENTER, CMD_ENTER},
    {SVK_TAB, CMD_NEXT_VIEW},
    {SVK_BTAB, CMD_PREV_VIEW},
    {'1', CMD_VIEW_1},
    {'2', CMD_VIEW_2},
    {'3', CMD_VIEW_3},
    {'4', CMD_VIEW_4},
    {'5', CMD_VIEW_5},
    {'/', CMD_SEARCH},
    {'n', CMD_SEARCH_NEXT},
    {'N', CMD_SEARCH_PREV},
    {'f', CMD_FILTER},
    {'s', CMD_SOURCE},
    {'+', CMD_ZOOM_IN},
    {'=', CMD_ZOOM_IN},
    {'-', CMD_ZOOM_OUT},
    {'0', CMD_ZOOM_FIT},
    {'z', CMD_ZOOM_SEL},
    {'[', CMD_PREV_CALL},
    {']', CMD_NEXT_CALL},
    {'d', CMD_DRILL},
    {'S', CMD_SLOWEST},
    {'e', CMD_EXPAND},
    {'c', CMD_COLLAPSE},
    {'E', CMD_EXPAND_ALL},
    {'C', CMD_COLLAPSE_ALL},
    {'<', CMD_SORT_PREV},
    {'>', CMD_SORT_NEXT},
    {'I', CMD_SORT_INVERT},
    {'r', CMD_SCOPE},
    {'R', CMD_FOLD_RECURSION},
    {'b', CMD_RANK_BREAKDOWN},
    {SVK_WHEEL_UP, CMD_WHEEL_UP},
    {SVK_WHEEL_DOWN, CMD_WHEEL_DOWN},
    {SVK_CLICK, CMD_CLICK},
    {0, CMD_NONE},
};

static ui_cmd table_find(const key_binding *t, int key)
{
    for (; t && t->key; t++)
        if (t->key == key)
            return t->cmd;
    return CMD_NONE;
}

ui_cmd keys_lookup(const key_binding *view_table, int key)
{
    if (key == SVK_NONE)
        return CMD_NONE;
    ui_cmd c = table_find(view_table, key);
    return c != CMD_NONE ? c : table_find(keys_global, key);
}

typedef struct key_name {
    const char *name;
    int key;
} key_name;

/* The first name of a key is its label; the others are accepted aliases. */
static const key_name key_names[] = {
    {"Enter", SVK_ENTER},
    {"Return", SVK_ENTER},
    {"CR", SVK_ENTER},
    {"Esc", SVK_ESC},
    {"Escape", SVK_ESC},
    {"Tab", SVK_TAB},
    {"S-Tab", SVK_BTAB},
    {"BTab", SVK_BTAB},
    {"Left", SVK_LEFT},
    {"Right", SVK_RIGHT},
    {"Up", SVK_UP},
    {"Down", SVK_DOWN},
    {"PgUp", SVK_PGUP},
    {"PageUp", SVK_PGUP},
    {"PgDn", SVK_PGDN},
    {"PageDown", SVK_PGDN},
    {"Home", SVK_HOME},
    {"End", SVK_END},
    {"F1", SVK_F1},
    {"Backspace", SVK_BACKSPACE},
    {"BS", SVK_BACKSPACE},
    {"Resize", SVK_RESIZE},
    {"WheelUp", SVK_WHEEL_UP},
    {"WheelDown", SVK_WHEEL_DOWN},
    {"Click", SVK_CLICK},
    {"Space", ' '},
    {"lt", '<'},
    {"gt", '>'},
};

#define NKEY_NAMES (sizeof key_names / sizeof key_names[0])

static int name_lookup(const char *s, size_t len)
{
    for (size_t i = 0; i < NKEY_NAMES; i++)
        if (strlen(key_names[i].name) == len && strncasecmp(key_names[i].name, s, len) == 0)
            return key_names[i].key;
    return SVK_NONE;
}

/* Length of "Name" after a '<' when the text looks like a key name
 * ("<Enter>", "<S-Tab>"): two or more letters, digits or '-' and a '>'.
 * Anything else ("<", "<<", "<a>") is taken literally. */
static size_t name_span(const char *s)
{
    size_t k = 0;
    while ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') ||
           (s[k] >= '0' && s[k] <= '9') || s[k] == '-')
        k++;
    return k >= 2 && s[k] == '>' ? k : 0;
}

/* msg = before + the escaped first len bytes of arg + after. */
static long parse_fail(char *msg, size_t msglen, const char *before, const char *arg, int len,
                       const char *after)
{
    if (msg && msglen) {
        char raw[64], shown[64];
        snprintf(raw, sizeof raw, "%.*s", len, arg);
        text_escape_buf(shown, sizeof shown, raw);
        snprintf(msg, msglen, "%s%s%s", before, shown, after);
    }
    return -1;
}

long keys_parse(const char *s, int *out, size_t max, char *msg, size_t msglen)
{
    size_t n = 0, i = 0, len = s ? strlen(s) : 0;
    while (i < len) {
        int key;
        size_t span = s[i] == '<' ? name_span(s + i + 1) : 0;
        if (span) {
            key = name_lookup(s + i + 1, span);
            if (key == SVK_NONE)
                return parse_fail(msg, msglen, "unknown key name <", s + i + 1,
                                  (int)(span < 40 ? span : 40), "> in --keys");
            i += span + 2;
        } else {
            uint32_t cp;
            size_t k = utf8_decode(s + i, len - i, &cp);
            if (k == 0)
                return parse_fail(msg, msglen, "--keys is not valid UTF-8 near '", s + i, 4, "'");
            key = (int)cp;
            i += k;
        }
        if (n >= max)
            return parse_fail(msg, msglen, "too many keys in --keys", "", 0, "");
        out[n++] = key;
    }
    return (long)n;
}

const char *keys_label(int key, char *buf, size_t len)
{
    if (!buf || len == 0)
        return "";
    for (size_t i = 0; i < NKEY_NAMES; i++) {
        if (key_names[i].key == key && key != '<' && key != '>') {
            snprintf(buf, len, "%s", key_names[i].name);
            return buf;
        }
    }
    char u[5] = {0};
    if (key > 0 && key < SVK_BASE && !text_is_unsafe_cp((uint32_t)key) &&
        utf8_encode((uint32_t)key, u) > 0)
        snprintf(buf, len, "%s", u);
    else
        snprintf(buf, len, "0x%x", (unsigned)key);
    return buf;
}
