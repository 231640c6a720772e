/* The region columns in shared memory (wire.h wire_send_profile_shm).
 *
 * Identity: every fixture and shared profile loaded by the loading child
 * with the columns in a sealed memfd is the same model as with the
 * columns through the pipe (SCOPEVIEW_TEST_PIPE=1): the same wire bytes
 * once received (the wire carries every field, statistics bit for bit),
 * and the same columns read value by value.  The shared load's regions
 * really point into its mapping (cols_shared), the piped one's do not.
 *
 * Robustness of the receiver: a memfd not sealed, shorter than the
 * column table says, no memfd at all, a table whose offset or length is
 * wrong, every prefix of the stream and flipped bytes give a one-line
 * error (or, for flipped bytes, a model), never a crash or a leak.  A
 * memfd that cannot take the columns (a file size limit) sends them
 * inline instead. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/isolate.h"
#include "isolate/wire.h"
#include "load/loader.h"
#include "testutil.h"

/* The inline wire stream of p (every field, the columns' bytes too), malloc'ed. */
static unsigned char *stream_of(const profile *p, size_t *len)
{
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile(fd, p), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end > 0);
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static size_t shared_regions(const profile *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->nregions; i++)
        k += p->regions[i]->cols_shared;
    return k;
}

static size_t regions_with_calls(const profile *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->nregions; i++)
        k += p->regions[i]->start_ns != NULL;
    return k;
}

static void same_columns(const profile *a, const profile *b)
{
    assert_int_equal(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const region *x = a->regions[i], *y = b->regions[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->n, y->n);
        const int64_t *cx[] = {x->start_ns,   x->end_ns,   x->call_ids, x->parent_ids,
                               x->thread_ids, x->task_ids, x->await_ns, x->gpu_ns};
        const int64_t *cy[] = {y->start_ns,   y->end_ns,   y->call_ids, y->parent_ids,
                               y->thread_ids, y->task_ids, y->await_ns, y->gpu_ns};
        for (size_t c = 0; c < 8; c++) {
            assert_int_equal(cx[c] != NULL, cy[c] != NULL);
            for (size_t k = 0; cx[c] && k < x->n; k++)
                if (cx[c][k] != cy[c][k])
                    fail_msg("%s: column %zu call %zu: %lld vs %lld", x->name, c, k,
                             (long long)cx[c][k], (long long)cy[c][k]);
        }
    }
}

static profile *load_child(const char *path, bool pipe, bool viewer)
{
    if (pipe)
        setenv("SCOPEVIEW_TEST_PIPE", "1", 1);
    else
        unsetenv("SCOPEVIEW_TEST_PIPE");
    isolate_options io = {.defer_stats = viewer};
    profile *p = NULL;
    sv_error err;
    sv_err e = profile_load_isolated(path, &io, &p, &err);
    unsetenv("SCOPEVIEW_TEST_PIPE");
    if (e)
        return NULL;
    return p;
}

static void check_both_ways(const char *path, bool viewer)
{
    profile *a = load_child(path, false, viewer), *b = load_child(path, true, viewer);
    assert_int_equal(a != NULL, b != NULL);
    if (!a)
        return;
    /* The path taken: shared columns one way, the pipe the other. */
    assert_int_equal(shared_regions(a), regions_with_calls(a));
    assert_int_equal(shared_regions(b), 0);
    assert_int_equal(a->shared_cols != NULL, regions_with_calls(a) > 0);
    assert_null(b->shared_cols);
    size_t la, lb;
    unsigned char *sa = stream_of(a, &la), *sb = stream_of(b, &lb);
    if (la != lb || memcmp(sa, sb, la) != 0)
        fail_msg("%s: the model through shared memory differs from the piped one", path);
    same_columns(a, b);
    free(sa);
    free(sb);
    profile_free(a);
    profile_free(b);
}

static void check_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        bool ok = (n > 3 && strcmp(de->d_name + n - 3, ".h5") == 0) ||
                  (n > 5 && strcmp(de->d_name + n - 5, ".json") == 0) ||
                  (n > 4 && strcmp(de->d_name + n - 4, ".spt") == 0);
        if (!ok)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_both_ways(path, (*count)++ % 2 == 1);
    }
    closedir(d);
}

static void test_shared_is_piped(void **state)
{
    (void)state;
    char dir[2048]; /* with a slash and a name, within a 4096-byte path */
    size_t count = 0;
    for (size_t i = 0; sv_profile_dir(i, dir, sizeof dir); i++)
        check_dir(dir, &count);
    assert_true(count >= 10);
}

/* --- the receiver against a hostile sender ------------------------- */

static profile *demo_profile(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("%s", err.msg);
    return p;
}

/* A shared send of p: the stream's bytes and the sealed memfd. */
typedef struct shm_msg {
    unsigned char *b;
    size_t len;
    int mfd;
} shm_msg;

static int recv_one_fd(int sock)
{
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    assert_int_equal(recvmsg(sock, &msg, 0), 1);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    assert_non_null(c);
    assert_int_equal(c->cmsg_type, SCM_RIGHTS);
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static shm_msg shm_send(const profile *p)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile_shm(fd, sv[1], p, false, NULL), 0);
    shm_msg m = {NULL, 0, recv_one_fd(sv[0])};
    close(sv[0]);
    close(sv[1]);
    off_t end = lseek(fd, 0, SEEK_END);
    m.b = malloc((size_t)end);
    assert_non_null(m.b);
    assert_int_equal(pread(fd, m.b, (size_t)end, 0), end);
    m.len = (size_t)end;
    close(fd);
    return m;
}

typedef struct fake_src {
    const unsigned char *b;
    size_t len, pos;
    int fd;     /* what recv_fd hands over (a dup), -1 none */
    int handed; /* how many times recv_fd was asked */
} fake_src;

static ssize_t fake_read(void *ctx, void *buf, size_t n)
{
    fake_src *m = ctx;
    size_t left = m->len - m->pos, k = n < left ? n : left;
    if (k > 5555)
        k = 5555;
    memcpy(buf, m->b + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

static int fake_fd(void *ctx)
{
    fake_src *m = ctx;
    m->handed++;
    return m->fd >= 0 ? dup(m->fd) : -1;
}

static wire_status recv_fake(const unsigned char *b, size_t len, int fd, profile **out,
                             sv_error *err, int *handed)
{
    fake_src m = {b, len, 0, fd, 0};
    wire_src src = {fake_read, &m, fake_fd};
    wire_status s = wire_recv(&src, (uint64_t)1 << 30, out, err);
    if (handed)
        *handed = m.handed;
    return s;
}

/* A memfd with the first `bytes` of mfd's content, sealed with `seals`. */
static int copy_memfd(int mfd, size_t bytes, int seals)
{
    int fd = memfd_create("copy", MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    unsigned char *buf = malloc(bytes ? bytes : 1);
    assert_non_null(buf);
    assert_int_equal(pread(mfd, buf, bytes, 0), (ssize_t)bytes);
    assert_int_equal(pwrite(fd, buf, bytes, 0), (ssize_t)bytes);
    free(buf);
    if (seals)
        assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
    return fd;
}

static const int all_seals = F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL;

static void expect_error(const unsigned char *b, size_t len, int fd, const char *words)
{
    profile *q = NULL;
    sv_error err;
    assert_int_equal(recv_fake(b, len, fd, &q, &err, NULL), WIRE_BROKEN);
    assert_null(q);
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, words))
        fail_msg("expected \"%s\" in: %s", words, err.msg);
}

/* Where the stream's first shared column (rank 0's region 0's start_ns: offset 0,
 * n calls) is described: its kind word. */
static size_t first_shared(const shm_msg *m, size_t n)
{
    uint64_t want[3] = {2, 0, (uint64_t)n * 8};
    for (size_t at = 0; at + sizeof want <= m->len; at++)
        if (memcmp(m->b + at, want, sizeof want) == 0)
            return at;
    fail_msg("no shared column in the stream");
    return 0;
}

static void test_hostile_mapping(void **state)
{
    (void)state;
    profile *p = demo_profile();
    shm_msg m = shm_send(p);
    struct stat st;
    assert_int_equal(fstat(m.mfd, &st), 0);
    size_t size = (size_t)st.st_size;
    assert_int_equal(fcntl(m.mfd, F_GET_SEALS) & all_seals, all_seals);

    /* As sent: the model, its columns in one mapping of the memfd's size. */
    profile *q = NULL;
    sv_error err;
    int handed = 0;
    assert_int_equal(recv_fake(m.b, m.len, m.mfd, &q, &err, &handed), WIRE_PROFILE);
    assert_int_equal(handed, 1);
    assert_int_equal(q->shared_len, size);
    assert_int_equal(shared_regions(q), regions_with_calls(p));
    same_columns(p, q);
    profile_free(q);

    /* Not sealed, sealed but for writes, too short, none at all, no way to get one. */
    int fd = copy_memfd(m.mfd, size, 0);
    expect_error(m.b, m.len, fd, "not sealed");
    close(fd);
    fd = copy_memfd(m.mfd, size, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
    expect_error(m.b, m.len, fd, "not sealed");
    close(fd);
    fd = copy_memfd(m.mfd, size - 8, all_seals);
    expect_error(m.b, m.len, fd, "outside the shared memory");
    close(fd);
    expect_error(m.b, m.len, -1, "no shared memory came");
    {
        fake_src f = {m.b, m.len, 0, m.mfd, 0};
        wire_src src = {fake_read, &f, NULL};
        assert_int_equal(wire_recv(&src, 0, &q, &err), WIRE_BROKEN);
        assert_null(q);
    }

    /* A table that lies: an offset past the end, an odd offset, a length not the region's. */
    size_t at = first_shared(&m, p->ranks[0].regions[0]->n);
    unsigned char *t = malloc(m.len);
    assert_non_null(t);
    uint64_t bad[][2] = {{1, (uint64_t)size}, {1, 4}, {1, UINT64_MAX - 7}, {2, 8}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memcpy(t, m.b, m.len);
        uint64_t v = bad[i][0] == 2 ? p->ranks[0].regions[0]->n * 8 + bad[i][1] : bad[i][1];
        memcpy(t + at + 8 * bad[i][0], &v, 8);
        expect_error(t, m.len, m.mfd,
                     bad[i][0] == 2 ? "length is not its region's" : "outside the shared");
    }
    /* An unknown column kind. */
    memcpy(t, m.b, m.len);
    uint64_t kind = 3;
    memcpy(t + at, &kind, 8);
    expect_error(t, m.len, m.mfd, "malformed");

    /* Every prefix, flipped bytes: an error or a model, never a crash or a leak. */
    for (size_t cut = 0; cut < m.len; cut += cut < 2048 ? 1 : 331) {
        assert_int_equal(recv_fake(m.b, cut, m.mfd, &q, &err, NULL), WIRE_BROKEN);
        assert_null(q);
    }
    srand(25);
    for (int i = 0; i < 400; i++) {
        memcpy(t, m.b, m.len);
        t[(size_t)rand() % m.len] ^= (unsigned char)(1 + rand() % 255);
        wire_status ws = recv_fake(t, m.len, m.mfd, &q, &err, NULL);
        assert_true(ws == WIRE_PROFILE || q == NULL);
        profile_free(q);
        q = NULL;
    }
    free(t);
    close(m.mfd);
    free(m.b);
    profile_free(p);
}

/* Without a socket the columns go inline: the same stream as wire_send_profile. */
static void test_no_socket_is_inline(void **state)
{
    (void)state;
    profile *p = demo_profile();
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile_shm(fd, -1, p, false, NULL), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    size_t len;
    unsigned char *want = stream_of(p, &len);
    assert_int_equal((size_t)end, len);
    unsigned char *got = malloc(len);
    assert_non_null(got);
    assert_int_equal(pread(fd, got, len, 0), (ssize_t)len);
    assert_memory_equal(got, want, len);
    free(got);
    free(want);
    close(fd);
    profile_free(p);
}

static ssize_t pipe_read(void *ctx, void *buf, size_t n)
{
    return read(*(int *)ctx, buf, n);
}

/* A memfd that cannot take the columns (a file size limit, as ulimit -f sets for the whole
 * process tree): the columns go inline, whole, and the model arrives. */
static void test_file_size_limit_falls_back(void **state)
{
    (void)state;
    profile *p = demo_profile();
    int data[2], sv[2];
    assert_int_equal(pipe(data), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(data[0]);
        close(sv[0]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        _exit(wire_send_profile_shm(data[1], sv[1], p, true, NULL) ? 1 : 0);
    }
    close(data[1]);
    close(sv[1]);
    wire_src src = {pipe_read, &data[0], NULL}; /* a shared column would be malformed */
    profile *q = NULL;
    sv_error err;
    wire_status ws = wire_recv(&src, 0, &q, &err);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    if (ws != WIRE_PROFILE)
        fail_msg("%s", err.msg);
    assert_int_equal(shared_regions(q), 0);
    same_columns(p, q);
    profile_free(q);
    close(data[0]);
    close(sv[0]);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_is_piped),
        cmocka_unit_test(test_hostile_mapping),
        cmocka_unit_test(test_no_socket_is_inline),
        cmocka_unit_test(test_file_size_limit_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
