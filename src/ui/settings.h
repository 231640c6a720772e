/* settings: the user's config file, as tig's ~/.tigrc and htop's htoprc.
 *
 * $XDG_CONFIG_HOME/scopeview/config (~/.config/scopeview/config), or the
 * file --config names.  One statement a line; a word starting with '#'
 * starts a comment (but "bind global # help" binds '#'):
 *
 *   bind VIEW KEY COMMAND     bind tree x expand; bind global <F2> help; COMMAND none unbinds
 *   theme default|dark|light|mono
 *   color ROLE FG BG [ATTR...] color title white blue bold; colours by name or 0..255
 *   set default-view tree      the view shown first
 *   set tree-scope rank        all | rank | thread: the tree's first scope
 *   set tree-sort excl [asc]   calls incl excl mean max par await gpu name
 *   set source-width 60        columns of the source pane beside a view (0: 2/5 of it)
 *
 * A bad line gets "FILE:LINE: what is wrong" and is skipped; the others
 * still apply.  Parsing is pure (no terminal, no globals): settings_parse
 * works on a string, so the unit tests feed it text. */
#ifndef SV_SETTINGS_H
#define SV_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "commands.h"
#include "util/strbuf.h"
#include "theme.h"

enum cfg_tree_scope { CFG_SCOPE_ALL, CFG_SCOPE_RANK, CFG_SCOPE_THREAD };

/* The tree's sort columns, in the tree's column order (tree.c checks). */
enum cfg_tree_sort {
    CFG_SORT_CALLS,
    CFG_SORT_INCL,
    CFG_SORT_EXCL,
    CFG_SORT_MEAN,
    CFG_SORT_MAX,
    CFG_SORT_PAR,
    CFG_SORT_AWAIT,
    CFG_SORT_GPU,
    CFG_SORT_NAME,
    CFG_SORT_COUNT
};

typedef struct sv_settings {
    keymap keys;       /* commands.def's defaults, then the bind lines */
    theme_name theme;  /* the last theme line */
    theme_palette pal; /* the theme, then the color lines */
    view_id default_view;
    int tree_scope;     /* CFG_SCOPE_* */
    int tree_sort;      /* CFG_SORT_* */
    bool tree_sort_asc; /* the default sort is descending */
    int source_width;   /* 0: 2/5 of the screen */
} sv_settings;

/* The built-in behaviour; false only if the key table does not parse. */
bool settings_defaults(sv_settings *c);

/* Applies every line of text (fname names it in messages) to c.  Each bad
 * line appends "fname:N: problem\n" to err (may be NULL) and is skipped.
 * Returns the number of bad lines. */
int settings_parse(sv_settings *c, const char *text, const char *fname, strbuf *err);

/* Reads and applies the file at path.  A missing file is no error unless
 * must_exist.  A file that cannot be read as a config file (missing,
 * unreadable, not a regular file: a FIFO, a directory, a device; over 1 MiB;
 * a NUL byte) is one message ("path: reason") and SETTINGS_UNREADABLE;
 * otherwise returns the number of bad lines (each reported and skipped). */
#define SETTINGS_UNREADABLE (-1)
int settings_load(sv_settings *c, const char *path, bool must_exist, strbuf *err);

/* The config file used without --config: $XDG_CONFIG_HOME/scopeview/config,
 * else $HOME/.config/scopeview/config; NULL (buf empty) without either. */
const char *settings_default_path(char *buf, size_t len);

/* The built-in defaults as a commented config file that reads back to the
 * same behaviour (scopeview --dump-config). */
void settings_dump_defaults(strbuf *out);

#endif
