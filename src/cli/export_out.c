/* export_out: the export's output file (export.h export_sink).
 *
 * A reader of OUT must never see half an export, and an export must never replace its own
 * input: the writer fills a temporary file beside OUT (the same directory, so the rename is
 * atomic and on the same file system) and renames it only after every byte reached the
 * disk (fflush, fsync, fclose all checked: a full disk often shows only at the last). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "util/text.h"

static void shown_path(char *buf, size_t len, const char *path)
{
    text_escape_buf(buf, len, path);
}

static bool same_file(const struct stat *a, const char *path)
{
    struct stat b;
    return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* "DIR/.NAME.XXXXXX" for out "DIR/NAME" (or "NAME"). */
static char *temp_template(const char *out)
{
    const char *slash = strrchr(out, '/');
    size_t dir = slash ? (size_t)(slash - out) + 1 : 0;
    const char *name = out + dir;
    size_t n = dir + 1 + strlen(name) + sizeof ".XXXXXX";
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.XXXXXX", (int)dir, out, name);
    return t;
}

static sv_err open_temp(export_sink *s, const char *out, sv_error *err)
{
    char shown[320];
    shown_path(shown, sizeof shown, out);
    s->tmp = temp_template(out);
    if (!s->tmp)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    int fd = mkstemp(s->tmp);
    if (fd < 0) {
        int e = errno;
        free(s->tmp);
        s->tmp = NULL;
        return sv_error_set(err, SV_ERR_IO, "cannot write %s: %s", shown, strerror(e));
    }
    /* mkstemp makes 0600; the export is an ordinary file, as a shell redirection makes it. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(s->fp = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(s->tmp);
        free(s->tmp);
        s->tmp = NULL;
        return sv_error_set(err, SV_ERR_IO, "cannot write %s: %s", shown, strerror(e));
    }
    return SV_OK;
}

sv_err export_out_check(const char *out, const char *const *inputs, size_t ninputs, sv_error *err)
{
    struct stat st;
    if (strcmp(out, "-") == 0 || stat(out, &st) != 0)
        return SV_OK;
    for (size_t i = 0; i < ninputs; i++)
        if (inputs[i] && same_file(&st, inputs[i])) {
            char shown[320];
            shown_path(shown, sizeof shown, out);
            return sv_error_set(err, SV_ERR_IO,
                                "%s is the profile being exported: refusing to overwrite it",
                                shown);
        }
    return SV_OK;
}

sv_err export_sink_open(export_sink *s, const char *out, const char *const *inputs, size_t ninputs,
                        sv_error *err)
{
    memset(s, 0, sizeof *s);
    if (strcmp(out, "-") == 0) {
        s->fp = stdout;
        return SV_OK;
    }
    s->path = out;
    char shown[320];
    shown_path(shown, sizeof shown, out);
    sv_err rc = export_out_check(out, inputs, ninputs, err);
    if (rc != SV_OK)
        return rc;
    struct stat st;
    bool exists = stat(out, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return sv_error_set(err, SV_ERR_IO, "cannot write %s: %s", shown, strerror(EISDIR));
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or FIFO: renaming over it would replace it, so write to it. */
        s->fp = fopen(out, "w");
        return s->fp ? SV_OK
                     : sv_error_set(err, SV_ERR_IO, "cannot write %s: %s", shown, strerror(errno));
    }
    return open_temp(s, out, err);
}

/* The first error of flushing, syncing and closing fp (0 when none). */
static int close_file(FILE *fp, bool sync)
{
    int e = 0;
    errno = 0;
    if (fflush(fp) != 0 || ferror(fp))
        e = errno ? errno : EIO;
    if (!e && sync && fsync(fileno(fp)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (fclose(fp) != 0 && !e)
        e = errno ? errno : EIO;
    return e;
}

sv_err export_sink_close(export_sink *s, bool ok, int write_errno, sv_error *err)
{
    if (!s->fp)
        return SV_OK;
    if (s->fp == stdout) {
        s->fp = NULL;
        return SV_OK; /* main's finish_stdout: 141 for a closed pipe, the reason otherwise */
    }
    bool failed = ferror(s->fp);
    int e = close_file(s->fp, s->tmp != NULL && !write_errno);
    s->fp = NULL;
    if (write_errno)
        e = write_errno; /* the first failure is the reason, not what closing said after */
    else if (!e && failed)
        e = EIO;
    if (!e && ok && s->tmp && rename(s->tmp, s->path) != 0)
        e = errno;
    if ((e || !ok) && s->tmp)
        unlink(s->tmp);
    free(s->tmp);
    s->tmp = NULL;
    if (!e)
        return SV_OK;
    char shown[320];
    shown_path(shown, sizeof shown, s->path);
    return sv_error_set(err, SV_ERR_IO, "cannot write %s: %s", shown, strerror(e));
}

sv_err export_write(profile *p, const region_filter *f, const export_request *req, FILE *fp,
                    FILE *warn, sv_error *err)
{
    if (p->cpaths && req->format != EXPORT_FOLDED) {
        char name[256];
        text_escape_buf(name, sizeof name, p->path ? p->path : "");
        return sv_error_set(err, SV_ERR_RANGE,
                            "%s: out of core, this export needs the calls in memory (--memory)",
                            name);
    }
    switch (req->format) {
    case EXPORT_CHROME:
        return export_chrome(p, f, &req->range, fp, warn, err);
    case EXPORT_SPEEDSCOPE:
        return export_speedscope(p, f, &req->range, fp, warn, err);
    default:
        return export_folded(p, f, req, fp, err);
    }
}
