#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SV_TOP_SRCDIR
#define SV_TOP_SRCDIR "."
#endif
#ifndef SV_TOP_BUILDDIR
#define SV_TOP_BUILDDIR "."
#endif

const char *sv_fixture_path(char *buf, size_t len, const char *name)
{
    const char *env = getenv("SV_TOP_BUILDDIR");
    snprintf(buf, len, "%s/tests/fixtures/%s", env && *env ? env : SV_TOP_BUILDDIR, name);
    return buf;
}

const char *sv_shared_path(char *buf, size_t len, const char *rel)
{
    const char *env = getenv("SV_SHARED_DIR");
    if (env && *env)
        snprintf(buf, len, "%s/%s", env, rel);
    else
        snprintf(buf, len, "%s/../shared/%s", SV_TOP_SRCDIR, rel);
    return buf;
}

bool sv_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool sv_shared_available(void)
{
    char buf[4096];
    struct stat st;
    return stat(sv_shared_path(buf, sizeof buf, "data/real"), &st) == 0 && S_ISDIR(st.st_mode);
}

int sv_shared_exit(int failed)
{
    if (failed || sv_shared_available())
        return failed;
    char buf[4096];
    printf("note: no shared data at %s: only its cross-checks were left out\n",
           sv_shared_path(buf, sizeof buf, ""));
    return 0;
}

bool sv_file_checksum(const char *path, uint64_t *sum, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint64_t h = 0xcbf29ce484222325ULL, n = 0;
    unsigned char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < k; i++) {
            h ^= buf[i];
            h *= 0x100000001b3ULL;
        }
        n += k;
    }
    bool ok = !ferror(f);
    fclose(f);
    *sum = h;
    if (size)
        *size = n;
    return ok;
}

char *sv_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, k;
    do {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
    } while (k > 0);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

ssize_t sv_mem_read(void *ctx, void *buf, size_t n)
{
    sv_mem_src *m = ctx;
    size_t left = m->len - m->pos, k = n < left ? n : left;
    if (m->piece && k > m->piece)
        k = m->piece;
    memcpy(buf, m->b + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

const char *sv_profile_dir(size_t i, char *buf, size_t len)
{
    static const char *const sub[] = {"data/real", "data/extended", "data/upstream"};
    if (i == 0)
        return sv_fixture_path(buf, len, "");
    if (i > sizeof sub / sizeof *sub || !sv_shared_available())
        return NULL;
    return sv_shared_path(buf, len, sub[i - 1]);
}
