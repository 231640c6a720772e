/* load_run: the files that make one run.  A directory stands for its
 * native traces (*.spt) and per-rank HDF5 files (*_rank<N>.h5), not
 * recursively, in name order; any other path is itself. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader.h"
#include "loader_internal.h"
#include "util/strbuf.h"
#include "util/text.h"

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* "*_rank[0-9]*.h5" or "*.spt", not hidden. */
static bool run_member(const char *name)
{
    if (name[0] == '.')
        return false;
    if (ends_with(name, ".spt"))
        return true;
    if (!ends_with(name, ".h5"))
        return false;
    const char *r = NULL;
    for (const char *s = strstr(name, "_rank"); s; s = strstr(s + 1, "_rank"))
        r = s;
    return r && r[5] >= '0' && r[5] <= '9';
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct run_list {
    char **v;
    size_t n, cap;
} run_list;

static bool run_push(run_list *l, char *s)
{
    if (!s)
        return false;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return true;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    size_t o = a;
    if (a == 0 || dir[a - 1] != '/')
        s[o++] = '/';
    memcpy(s + o, name, b + 1);
    return s;
}

/* Appends dir's members, sorted; an error when it has none. */
static sv_err run_dir(run_list *l, const char *dir, sv_error *err)
{
    char esc[400];
    text_escape_buf(esc, sizeof esc, dir);
    DIR *d = opendir(dir);
    if (!d)
        return sv_error_set(err, SV_ERR_IO, "%s: %s", esc, strerror(errno));
    size_t first = l->n;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));)
        if (run_member(e->d_name))
            ok = run_push(l, join(dir, e->d_name));
    closedir(d);
    if (!ok)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", esc);
    if (l->n == first)
        return sv_error_set(err, SV_ERR_IO,
                            "%s: a directory without native traces (*.spt) or rank files "
                            "(*_rank<N>.h5)",
                            esc);
    qsort(l->v + first, l->n - first, sizeof *l->v, name_cmp);
    return SV_OK;
}

bool profile_path_is_native(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    unsigned char head[8];
    bool native = ld_spt_magic(head, fread(head, 1, sizeof head, fp));
    fclose(fp);
    return native;
}

sv_err profile_run_paths(const char *const *paths, size_t n, char ***out, size_t *nout,
                         sv_error *err)
{
    run_list l = {0};
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            e = run_dir(&l, paths[i], err);
        else if (!run_push(&l, strdup(paths[i])))
            e = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    if (e) {
        profile_run_paths_free(l.v, l.n);
        return e;
    }
    *out = l.v;
    *nout = l.n;
    return SV_OK;
}

void profile_run_paths_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
