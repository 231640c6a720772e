/* man_keys: writes doc/scopeview.1 with its key lists generated from the
 * command table (src/ui/commands.def).
 *
 *   man_keys MANPAGE > out
 *   man_keys --labels > out     every help line's keys, one a line, for the help screen check
 *
 * Copies MANPAGE, replacing the lines between each `.\" keys SCOPE` marker
 * and the next `.\" end of keys` with SCOPE's help lines in roff.
 * tests/man_keys.sh fails when the committed page differs from that;
 * `make man-keys` rewrites it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/commands.h"
#include "ui/ui.h"
#include "util/text.h"

#define LINES_MAX 64

/* Roff for text in a line: \ - and a leading . or ' escaped. */
static void put_roff(FILE *out, const char *s, size_t n, bool line_start)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (i == 0 && line_start && (c == '.' || c == '\''))
            fputs("\\&", out);
        if (c == '\\')
            fputs("\\e", out);
        else if (c == '-')
            fputs("\\-", out);
        else if (c == '"')
            fputs("\\(dq", out);
        else
            fputc(c, out);
    }
}

/* ".B q", ".BR Left \", \" h", or a note's label whole. */
static void put_keys(FILE *out, const help_line *l)
{
    size_t len = strlen(l->keys);
    if (!strchr(l->keys, ' ')) {
        fputs(".B ", out);
        put_roff(out, l->keys, len, false);
        fputc('\n', out);
        return;
    }
    if (l->note) {
        fputs(".B \"", out);
        put_roff(out, l->keys, len, false);
        fputs("\"\n", out);
        return;
    }
    fputs(".BR", out);
    const char *s = l->keys;
    bool first = true;
    while (*s) {
        size_t n = strcspn(s, " ");
        fputs(first ? " " : " \", \" ", out);
        put_roff(out, s, n, false);
        first = false;
        s += n;
        s += strspn(s, " ");
    }
    fputc('\n', out);
}

/* The help line as a sentence: a capital first letter and a full stop. */
static void put_text(FILE *out, const char *text)
{
    size_t n = strlen(text);
    if (n == 0)
        return;
    char first = (char)toupper((unsigned char)text[0]);
    put_roff(out, &first, 1, true);
    put_roff(out, text + 1, n - 1, false);
    fputs(text[n - 1] == '.' ? "\n" : ".\n", out);
}

static int put_scope(FILE *out, const keymap *km, const char *name)
{
    int scope = scope_lookup(name);
    if (scope < 0) {
        fprintf(stderr, "man_keys: unknown scope '%s'\n", name);
        return 1;
    }
    help_line *lines = malloc(LINES_MAX * sizeof *lines);
    if (!lines)
        return 1;
    size_t n = commands_help(km, (key_scope)scope, lines, LINES_MAX);
    for (size_t i = 0; i < n && i < LINES_MAX; i++) {
        fputs(i == 0 ? ".TP 16\n" : ".TP\n", out);
        put_keys(out, &lines[i]);
        put_text(out, lines[i].text);
    }
    free(lines);
    return 0;
}

/* Roff for UTF-8 text: put_roff, with every non-ASCII character as a
 * \[uXXXX] escape (the page stays ASCII). */
static void put_roff_utf8(FILE *out, const char *s)
{
    while (*s) {
        uint32_t cp = 0;
        size_t n = (unsigned char)*s < 0x80 ? 0 : utf8_decode(s, strlen(s), &cp);
        if (n == 0) {
            put_roff(out, s, 1, false);
            s++;
            continue;
        }
        fprintf(out, "\\[u%04X]", (unsigned)cp);
        s += n;
    }
}

/* The timeline legend of the help (help.c), one tagged paragraph a row:
 * the sample (its ASCII form beside it when that differs) and its text. */
static int put_legend(FILE *out)
{
    for (size_t i = 0; i < help_legend_count(); i++) {
        char u[96], a[96];
        help_legend_label(i, false, u, sizeof u);
        help_legend_label(i, true, a, sizeof a);
        fputs(i == 0 ? ".TP 16\n" : ".TP\n", out);
        fputs(".B \"", out);
        put_roff_utf8(out, u);
        fputs("\"\n", out);
        if (strcmp(u, a) != 0) {
            fputs("(ASCII\n.BR \"", out);
            put_roff(out, a, strlen(a), false);
            fputs("\" )\n", out);
        }
        put_text(out, help_legend_text(i));
    }
    return 0;
}

/* The views of src/ui/views.def: "seven views: timeline (1), ...". */
static int put_views(FILE *out)
{
    static const char *const words[] = {"no",    "one",   "two",  "three", "four",   "five",  "six",
                                        "seven", "eight", "nine", "ten",   "eleven", "twelve"};
    static const char *const names[] = {
#define VIEW(id, name, ops, key) name " (" key ")",
#include "ui/views.def"
#undef VIEW
    };
    size_t n = sizeof names / sizeof names[0];
    fprintf(out, "The interface has %s views, one screen each:\n", n < 13 ? words[n] : "many");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s\n", names[i], i + 1 < n ? "," : ";");
    return 0;
}

/* The keys column of every help line of every scope. */
static int put_labels(const keymap *km)
{
    help_line *lines = malloc(LINES_MAX * sizeof *lines);
    if (!lines)
        return 1;
    for (int scope = 0; scope < SCOPE_COUNT; scope++) {
        size_t n = commands_help(km, (key_scope)scope, lines, LINES_MAX);
        for (size_t i = 0; i < n && i < LINES_MAX; i++)
            printf("%s\n", lines[i].keys);
    }
    free(lines);
    return 0;
}

int main(int argc, char **argv)
{
    static const char start[] = ".\\\" keys ", end[] = ".\\\" end of keys";
    if (argc == 2 && strcmp(argv[1], "--labels") == 0) {
        keymap *km = malloc(sizeof *km);
        int rc = km && keymap_defaults(km) ? put_labels(km) : 1;
        free(km);
        return rc;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: man_keys MANPAGE\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    keymap *km = malloc(sizeof *km);
    if (!in || !km || !keymap_defaults(km)) {
        fprintf(stderr, "man_keys: cannot read %s or the key table\n", argv[1]);
        return 1;
    }
    char line[4096];
    int status = 0, inside = 0, blocks = 0;
    while (fgets(line, sizeof line, in)) {
        if (inside && strncmp(line, end, sizeof end - 1) != 0)
            continue;
        fputs(line, stdout);
        inside = 0;
        if (strncmp(line, start, sizeof start - 1) == 0) {
            char name[64];
            if (sscanf(line + sizeof start - 1, "%63[a-z]", name) != 1 ||
                (strcmp(name, "legend") == 0  ? put_legend(stdout)
                 : strcmp(name, "views") == 0 ? put_views(stdout)
                                              : put_scope(stdout, km, name)) != 0)
                status = 1;
            inside = 1;
            blocks++;
        }
    }
    fclose(in);
    free(km);
    if (inside || blocks == 0) {
        fprintf(stderr, "man_keys: %s\n",
                inside ? "a key list has no end marker" : "no key list markers");
        status = 1;
    }
    return status;
}
