/* outcheck: the checks tests/hostile.sh makes on scopeview's output.
 *
 *   outcheck clean FILE             valid UTF-8; no C0 control but LF, no DEL, no C1
 *                                   (U+0080..U+009F); so no ESC, BEL or CR
 *   outcheck json FILE              clean, and parses as strict JSON (json_min)
 *   outcheck csv FILE               clean, RFC 4180, every record as wide as the header
 *   outcheck screen COLS ROWS FILE  clean, ROWS lines, none wider than COLS cells
 *   outcheck run MAX_KIB CMD...     runs CMD; exit 3 when its peak RSS passed MAX_KIB
 *                                   (0: no limit), else CMD's status (128 + signal)
 *   outcheck name K FILE            prints the name of the K-th region of a --json output
 *                                   as raw bytes, to pass a hostile name back as an
 *                                   argument; names holding U+FFFD are skipped (invalid
 *                                   UTF-8 in the file, which JSON cannot carry back)
 *
 * Exit 0 when the check holds, 1 with one line on stderr saying where it fails. */
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include "json_min.h"
#include "testutil.h"

static int fail(const char *what, const char *file, size_t off)
{
    fprintf(stderr, "outcheck: %s: %s at byte %zu\n", file, what, off);
    return 1;
}

/* Length of the UTF-8 sequence at s (strict: no overlong forms, no
 * surrogates, at most U+10FFFF), 0 when invalid; its code point in *cp. */
static size_t utf8_seq(const unsigned char *s, size_t left, unsigned *cp)
{
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = s[0] < 0x80                   ? 1
               : s[0] >= 0xC2 && s[0] < 0xE0 ? 2
               : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
               : s[0] >= 0xF0 && s[0] < 0xF5 ? 4
                                             : 0;
    if (n == 0 || n > left)
        return 0;
    unsigned c = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

static int check_clean(const char *file, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t n = utf8_seq((const unsigned char *)s + i, len - i, &cp);
        if (n == 0)
            return fail("invalid UTF-8", file, i);
        if ((cp < 0x20 && cp != '\n') || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            char what[48];
            snprintf(what, sizeof what, "control character U+%04X", cp);
            return fail(what, file, i);
        }
        i += n;
    }
    return 0;
}

static int check_json(const char *file, const char *s, size_t len)
{
    char err[160];
    jm_node *n = jm_parse(s, len, err, sizeof err);
    if (!n) {
        fprintf(stderr, "outcheck: %s: %s\n", file, err);
        return 1;
    }
    jm_free(n);
    return 0;
}

/* One CSV field starting at s[*i]; false on a malformed quoted field. */
static bool csv_field(const char *s, size_t len, size_t *i)
{
    if (*i < len && s[*i] == '"') {
        for (++*i; *i < len; ++*i) {
            if (s[*i] != '"')
                continue;
            if (*i + 1 < len && s[*i + 1] == '"') {
                ++*i;
                continue;
            }
            ++*i;
            return *i == len || s[*i] == ',' || s[*i] == '\n';
        }
        return false;
    }
    while (*i < len && s[*i] != ',' && s[*i] != '\n') {
        if (s[*i] == '"')
            return false;
        ++*i;
    }
    return true;
}

static int check_csv(const char *file, const char *s, size_t len)
{
    size_t i = 0, width = 0, rec = 0;
    while (i < len) {
        size_t start = i, fields = 1;
        for (;;) {
            if (!csv_field(s, len, &i))
                return fail("malformed CSV field", file, start);
            if (i < len && s[i] == ',') {
                i++;
                fields++;
                continue;
            }
            break;
        }
        if (i < len)
            i++; /* the newline */
        if (rec++ == 0)
            width = fields;
        else if (fields != width) {
            char what[128];
            snprintf(what, sizeof what, "record %zu has %zu fields, the header %zu", rec, fields,
                     width);
            return fail(what, file, start);
        }
    }
    return rec == 0 ? fail("no header", file, 0) : 0;
}

static int check_screen(const char *file, const char *s, size_t len, long cols, long rows)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        return fail("no C.UTF-8 locale to measure with", file, 0);
    long line = 0;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        long w = 0;
        while (i < len && s[i] != '\n') {
            unsigned cp;
            size_t n = utf8_seq((const unsigned char *)s + i, len - i, &cp);
            int cw = wcwidth((wchar_t)cp);
            w += cw > 0 ? cw : 0;
            i += n ? n : 1;
        }
        i++;
        if (++line <= rows && w > cols) {
            char what[128];
            snprintf(what, sizeof what, "line %ld is %ld cells wide, more than %ld", line, w, cols);
            return fail(what, file, start);
        }
    }
    if (line != rows) {
        char what[64];
        snprintf(what, sizeof what, "%ld lines, not %ld", line, rows);
        return fail(what, file, len);
    }
    return 0;
}

static int run_cmd(long max_kib, char **argv)
{
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return 2;
    if (max_kib > 0 && ru.ru_maxrss > max_kib) {
        fprintf(stderr, "outcheck: %s: peak RSS %ld KiB, more than %ld KiB\n", argv[0],
                ru.ru_maxrss, max_kib);
        return 3;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int print_name(const char *file, const char *s, size_t len, long k)
{
    jm_node *n = jm_parse(s, len, NULL, 0);
    const jm_node *regs = jm_get(n, "regions");
    const char *name = NULL;
    for (size_t i = 0; k >= 0 && (name = jm_string(jm_get(jm_at(regs, i), "name"))); i++)
        if (!strstr(name, "\xef\xbf\xbd") && k-- == 0)
            break;
    if (name)
        fputs(name, stdout);
    jm_free(n);
    return name ? 0 : fail("no such region name", file, 0);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "run") == 0)
        return run_cmd(atol(argv[2]), argv + 3);
    const char *file = argc >= 3 ? argv[argc - 1] : NULL;
    bool screen = argc == 5 && strcmp(argv[1], "screen") == 0;
    bool name = argc == 4 && strcmp(argv[1], "name") == 0;
    if (!file || (argc != 3 && !screen && !name)) {
        fprintf(stderr, "usage: outcheck clean|json|csv FILE | screen COLS ROWS FILE | "
                        "name K FILE | run MAX_KIB CMD...\n");
        return 2;
    }
    size_t len;
    char *s = sv_slurp(file, &len);
    if (!s) {
        fprintf(stderr, "outcheck: cannot read %s\n", file);
        return 2;
    }
    int rc = name ? print_name(file, s, len, atol(argv[2])) : check_clean(file, s, len);
    if (rc == 0 && strcmp(argv[1], "json") == 0)
        rc = check_json(file, s, len);
    else if (rc == 0 && strcmp(argv[1], "csv") == 0)
        rc = check_csv(file, s, len);
    else if (rc == 0 && screen)
        rc = check_screen(file, s, len, atol(argv[2]), atol(argv[3]));
    free(s);
    return rc;
}
