/* keys: --keys parsing, key names and labels. */
#include "keys.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "grid.h"
#include "util/text.h"

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
    {"Ready", SVK_READY},
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

int keys_token(const char *s, size_t len)
{
    uint32_t cp;
    if (!s || len == 0)
        return SVK_NONE;
    if (utf8_decode(s, len, &cp) == len)
        return text_is_unsafe_cp(cp) ? SVK_NONE : (int)cp;
    return name_lookup(s, len);
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
