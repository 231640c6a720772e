/* fixtures: the small hand-checkable files of tests/gen/FIXTURES.md.
 * Every value here is the contract of that page; change both together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "scenarios.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define STRS(...) ((const char *const[]){__VA_ARGS__})
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A region with only start/end (plus whatever COLS adds) on RANK. */
static void put(hid_t rank, const char *name, gen_cols cols)
{
    gen_close(gen_region(rank, name, &cols));
}

static void put_good(hid_t rank)
{
    put(rank, "good", (gen_cols){.n = 2, .start = I64(0, 10), .end = I64(5, 20)});
}

/* ------------------------------------------------------------ small */

static void small_metadata(hid_t f)
{
    static const gen_kv kv[] = {
        {"hostname", GEN_STR, "testhost", 0, 0},
        {"mpi_size", GEN_INT, NULL, 1, 0},
        {"gpu", GEN_BOOL, NULL, 1, 0},
        {"load", GEN_FLOAT, NULL, 0, 0.5},
    };
    gen_metadata(f, kv, COUNT(kv));
    hid_t md = gen_group(f, "metadata");
    hid_t t = gen_fixed_str_type(6, H5T_STR_NULLPAD, H5T_CSET_ASCII);
    gen_attr_raw(md, "python_version", t, 0, "3.11.7");
    gen_close(t);
    gen_close(md);
}

static void small_outer(hid_t r0)
{
    hid_t g = gen_region(r0, "outer",
                         &(gen_cols){.n = 2,
                                     .start = I64(1000, 2000),
                                     .end = I64(1500, 3000),
                                     .call_ids = I64(1, 4),
                                     .parent_ids = I64(-1, -1),
                                     .thread_ids = I64(0, 0)});
    gen_region_source(g, &(gen_source){"app.py", 10, "with Region(\"outer\"):\n    inner()\n"});
    gen_attr_strs(g, "tags", STRS("demo", "io"), 2);
    gen_close(g);
}

static void fx_small(hid_t f)
{
    small_metadata(f);
    hid_t r0 = gen_rank(f, 0);
    gen_thread_table(r0, STRS("MainThread", "Worker-1"), I64(11, 12), I64(101, 102), 2);
    small_outer(r0);
    put(r0, "inner",
        (gen_cols){.n = 3,
                   .start = I64(1100, 2100, 2500),
                   .end = I64(1200, 2600, 2900),
                   .call_ids = I64(2, 5, 6),
                   .parent_ids = I64(1, 4, 4),
                   .thread_ids = I64(0, 0, 0),
                   .gpu_durations = I64(50, -1, 70),
                   .event_metadata = STRS("{\"i\": 1}", "", "{}")});
    put(r0, "io/write",
        (gen_cols){.n = 1,
                   .start = I64(1300),
                   .end = I64(1300),
                   .call_ids = I64(3),
                   .parent_ids = I64(1),
                   .thread_ids = I64(1),
                   .await_times = I64(0)});
    hid_t red = gen_region(r0, "reduce", NULL);
    static const gen_kv sum[] = {
        {"num_calls", GEN_INT, NULL, 4, 0},      {"total_ns", GEN_INT, NULL, 4000, 0},
        {"min_ns", GEN_INT, NULL, 500, 0},       {"max_ns", GEN_INT, NULL, 1500, 0},
        {"mean_ns", GEN_FLOAT, NULL, 0, 1000.0},
    };
    gen_summary(red, "summary", sum, COUNT(sum));
    gen_attr_str(red, "tags", "mpi");
    gen_close(red);
    gen_close(r0);
}

/* ----------------------------------------------------------- legacy */

static void fx_legacy_small(hid_t f)
{
    static const gen_kv kv[] = {
        {"hostname", GEN_STR, "legacyhost", 0, 0},
        {"mpi_size", GEN_INT, NULL, 1, 0},
        {"python_version", GEN_STR, "3.10.12", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.2.1", 0, 0},
    };
    gen_metadata(f, kv, COUNT(kv));
    hid_t r0 = gen_rank(f, 0);
    put(r0, "a", (gen_cols){.n = 2, .start = I64(0, 100), .end = I64(1000, 200)});
    put(r0, "b", (gen_cols){.n = 3, .start = I64(10, 300, 300), .end = I64(50, 400, 400)});
    put(r0, "c", (gen_cols){.n = 2, .start = I64(40, 900), .end = I64(60, 1200)});
    gen_close(r0);
}

static void fx_legacy_empty_region(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, "empty", (gen_cols){.n = 0, .start = I64(0), .end = I64(0)});
    put(r0, "one", (gen_cols){.n = 1, .start = I64(5), .end = I64(5)});
    gen_close(r0);
}

/* ------------------------------------------------------------ names */

static void fx_nested_names(hid_t f)
{
    gen_metadata(f, &(gen_kv){"k", GEN_STR, "v", 0, 0}, 1);
    hid_t r0 = gen_rank(f, 0);
    put(r0, "io", (gen_cols){.n = 1, .start = I64(0), .end = I64(10)});
    put(r0, "io/checkpoint", (gen_cols){.n = 1, .start = I64(1), .end = I64(2)});
    put(r0, "io/summary", (gen_cols){.n = 1, .start = I64(3), .end = I64(4)});
    put(r0, "deep/a/b/c", (gen_cols){.n = 1, .start = I64(20), .end = I64(30)});
    hid_t agg = gen_region(r0, "agg", NULL);
    static const gen_kv sum[] = {{"num_calls", GEN_INT, NULL, 2, 0},
                                 {"total_ns", GEN_INT, NULL, 30, 0}};
    gen_summary(agg, "aggregate", sum, COUNT(sum));
    gen_close(agg);
    gen_close(r0);
    hid_t r2 = gen_rank(f, 2);
    put(r2, "deep/a/b/c", (gen_cols){.n = 1, .start = I64(5), .end = I64(7)});
    gen_close(r2);
    gen_close(gen_rank(f, 5));
    gen_close(gen_group(f, "junk"));
}

/* ------------------------------------------------------------ types */

static void typed_region(hid_t r0, const char *name, hid_t ftype)
{
    hid_t g = gen_region(r0, name, NULL);
    gen_col_typed(g, "start_times", ftype, H5T_NATIVE_INT64, I64(1, 2, 3), 3);
    gen_col_typed(g, "end_times", ftype, H5T_NATIVE_INT64, I64(4, 5, 6), 3);
    gen_close(g);
}

static void fx_int_types(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    typed_region(r0, "i32", H5T_STD_I32LE);
    typed_region(r0, "u16", H5T_STD_U16LE);
    typed_region(r0, "u8", H5T_STD_U8LE);
    typed_region(r0, "i16be", H5T_STD_I16BE);
    hid_t g = gen_region(r0, "boolthr", &(gen_cols){.n = 1, .start = I64(1), .end = I64(2)});
    hid_t bt = gen_bool_type();
    gen_col_typed(g, "thread_ids", bt, bt, (const int8_t[]){0}, 1);
    gen_close(bt);
    gen_close(g);
    gen_close(r0);
}

static void fx_strings_fixed(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "r", &(gen_cols){.n = 1, .start = I64(0), .end = I64(1)});
    hid_t t16 = gen_fixed_str_type(16, H5T_STR_SPACEPAD, H5T_CSET_ASCII);
    gen_attr_raw(g, "source_file", t16, 0, "a.py            ");
    hid_t t2 = gen_fixed_str_type(2, H5T_STR_NULLPAD, H5T_CSET_ASCII);
    gen_attr_raw(g, "tags", t2, 2, "x\0yy");
    hid_t th = gen_group(r0, "threads");
    hid_t t4 = gen_fixed_str_type(4, H5T_STR_NULLPAD, H5T_CSET_UTF8);
    hsize_t one = 1;
    gen_dataset_raw(th, "name", t4, t4, 1, &one, "Main", false);
    gen_dataset_raw(th, "ident", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, I64(1), false);
    gen_dataset_raw(th, "native_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, I64(1), false);
    gen_close(t4);
    gen_close(th);
    gen_close(t2);
    gen_close(t16);
    gen_close(g);
    gen_close(r0);
}

/* ----------------------------------------------------------- faults */

static void fx_fault_length(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "bad", NULL);
    gen_col_i64(g, "start_times", I64(0, 10, 20), 3);
    gen_col_i64(g, "end_times", I64(5, 15), 2);
    gen_close(g);
    put_good(r0);
    gen_close(r0);
}

static void fx_fault_optlen(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g =
        gen_region(r0, "r", &(gen_cols){.n = 3, .start = I64(0, 10, 20), .end = I64(5, 15, 25)});
    gen_col_i64(g, "thread_ids", I64(0, 0), 2);
    gen_close(g);
    gen_close(r0);
}

static void fx_fault_float(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "f", NULL);
    gen_col_typed(g, "start_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (const double[]){0, 10}, 2);
    gen_col_i64(g, "end_times", I64(5, 15), 2);
    gen_close(g);
    put_good(r0);
    gen_close(r0);
}

static void fx_fault_float_opt(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "r", &(gen_cols){.n = 2, .start = I64(0, 10), .end = I64(5, 15)});
    gen_col_typed(g, "gpu_durations", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (const double[]){1, 2}, 2);
    gen_close(g);
    gen_close(r0);
}

static void fx_fault_2d(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "m", NULL);
    hsize_t dims[2] = {2, 2};
    gen_dataset_raw(g, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, dims, I64(0, 10, 20, 30),
                    true);
    gen_col_i64(g, "end_times", I64(5, 15, 25, 35), 4);
    gen_close(g);
    put_good(r0);
    gen_close(r0);
}

static void fx_fault_end_before_start(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, "neg", (gen_cols){.n = 2, .start = I64(10, 20), .end = I64(15, 19)});
    put_good(r0);
    gen_close(r0);
}

static void ids_region(hid_t f, const char *name, const int64_t *parents)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, name,
        (gen_cols){.n = 2,
                   .start = I64(0, 10),
                   .end = I64(100, 50),
                   .call_ids = I64(1, 2),
                   .parent_ids = parents});
    gen_close(r0);
}

static void fx_fault_orphan_parent(hid_t f)
{
    ids_region(f, "r", I64(-1, 99));
}

static void fx_fault_cycle(hid_t f)
{
    ids_region(f, "x", I64(2, 1));
}

static void fx_fault_bad_parent_only(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, "r",
        (gen_cols){.n = 2, .start = I64(0, 10), .end = I64(100, 50), .parent_ids = I64(-1, 1)});
    gen_close(r0);
}

static void fx_fault_thread_range(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    gen_thread_table(r0, STRS("MainThread"), I64(1), I64(1), 1);
    put(r0, "r",
        (gen_cols){.n = 2, .start = I64(0, 10), .end = I64(5, 15), .thread_ids = I64(0, 5)});
    gen_close(r0);
}

static void fx_fault_task_range(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    gen_task_table(r0, STRS("Task-1 main"), I64(-1), 1);
    put(r0, "r", (gen_cols){.n = 2, .start = I64(0, 10), .end = I64(5, 15), .task_ids = I64(0, 7)});
    gen_close(r0);
}

static void fx_fault_await_range(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, "r", (gen_cols){.n = 1, .start = I64(0), .end = I64(3), .await_times = I64(5)});
    gen_close(r0);
}

static void fx_fault_hostile_strings(hid_t f)
{
    gen_metadata(f, &(gen_kv){"clip", GEN_STR, "\x1b]52;c;SGVsbG8=\x07", 0, 0}, 1);
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "evil\x1b[31mred\x07",
                         &(gen_cols){.n = 1,
                                     .start = I64(0),
                                     .end = I64(1),
                                     .event_metadata = STRS("{\"k\": \"\\u001b[31m\"}")});
    gen_region_source(g, &(gen_source){"evil.py", 1,
                                       "a\rb\x9b"
                                       "31mc\xff\xfe"
                                       "d\n"});
    gen_attr_strs(g, "tags", STRS("\x1b[2J"), 1);
    gen_close(g);
    gen_close(r0);
}

static char *repeat_text(const char *unit, size_t total)
{
    size_t ulen = strlen(unit);
    char *s = gen_alloc(total + 1, 1);
    for (size_t i = 0; i < total; i++)
        s[i] = unit[i % ulen];
    s[total] = '\0';
    return s;
}

static void fx_fault_huge_string(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    hid_t g = gen_region(r0, "big", &(gen_cols){.n = 1, .start = I64(0), .end = I64(1)});
    char *text = repeat_text("0123456789abcde\n", (size_t)10 << 20);
    char *tag = repeat_text("t", (size_t)2 << 20);
    gen_attr_str(g, "source_text", text);
    gen_attr_strs(g, "tags", (const char *const *)&tag, 1);
    free(tag);
    free(text);
    gen_close(g);
    gen_close(r0);
}

static void fx_fault_region_no_regions(hid_t f)
{
    gen_metadata(f, &(gen_kv){"hostname", GEN_STR, "nohost", 0, 0}, 1);
}

/* The flame graph's hand-checked profile (FIXTURES.md flame.h5): two
 * ranks, main > {io, solve > rhs}, nesting inferred from the intervals. */
static void fx_flame(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    put(r0, "main", (gen_cols){.n = 1, .start = I64(0), .end = I64(1000000)});
    put(r0, "solve",
        (gen_cols){.n = 2, .start = I64(0, 700000), .end = I64(600000, 900000)});
    put(r0, "io", (gen_cols){.n = 1, .start = I64(600000), .end = I64(700000)});
    put(r0, "rhs", (gen_cols){.n = 2, .start = I64(100000, 750000), .end = I64(400000, 800000)});
    gen_close(r0);
    hid_t r1 = gen_rank(f, 1);
    put(r1, "main", (gen_cols){.n = 1, .start = I64(0), .end = I64(1000000)});
    put(r1, "io", (gen_cols){.n = 1, .start = I64(0), .end = I64(500000)});
    put(r1, "solve", (gen_cols){.n = 1, .start = I64(500000), .end = I64(1000000)});
    put(r1, "rhs", (gen_cols){.n = 1, .start = I64(500000), .end = I64(750000)});
    gen_close(r1);
    gen_metadata(f, &(gen_kv){"hostname", GEN_STR, "flamehost", 0, 0}, 1);
}

/* ---------------------------------------------------- aggregate views */

/* agg4.h5: 4 ranks for the imbalance, series and callers views
 * (FIXTURES.md has the values and the hand-computed answers). */
static void fx_agg4(hid_t f)
{
    static const int64_t work_len[4] = {1000, 1200, 800, 1000};
    static const int64_t io_len[3] = {300, 300, 1000};
    for (int r = 0; r < 4; r++) {
        hid_t rk = gen_rank(f, r);
        put(rk, "main", (gen_cols){.n = 1, .start = I64(0), .end = I64(20000)});
        int64_t ws[2] = {100, 2000}, we[2] = {100 + work_len[r], 2000 + work_len[r]};
        put(rk, "work", (gen_cols){.n = 2, .start = ws, .end = we});
        if (r < 3) {
            int64_t ie[1] = {4000 + io_len[r]};
            put(rk, "io", (gen_cols){.n = 1, .start = I64(4000), .end = ie});
        }
        if (r == 0) {
            int64_t ss[20], se[20];
            for (int i = 0; i < 20; i++) {
                ss[i] = 6000 + 200 * i;
                se[i] = ss[i] + (i == 0 ? 150 : 50 + i);
            }
            put(rk, "step", (gen_cols){.n = 20, .start = ss, .end = se});
            put(rk, "solve",
                (gen_cols){.n = 3, .start = I64(200, 400, 4100), .end = I64(500, 480, 4200)});
            put(rk, "kernel",
                (gen_cols){.n = 3, .start = I64(250, 420, 4120), .end = I64(350, 450, 4160)});
        }
        gen_close(rk);
    }
}

/* ------------------------------------------------------------ table */

typedef struct fixture {
    const char *file;
    void (*write)(hid_t file);
} fixture;

static const fixture fixtures[] = {
    {"small.h5", fx_small},
    {"legacy_small.h5", fx_legacy_small},
    {"legacy_empty_region.h5", fx_legacy_empty_region},
    {"flame.h5", fx_flame},
    {"nested_names.h5", fx_nested_names},
    {"int_types.h5", fx_int_types},
    {"strings_fixed.h5", fx_strings_fixed},
    {"fault_length.h5", fx_fault_length},
    {"fault_optlen.h5", fx_fault_optlen},
    {"fault_float.h5", fx_fault_float},
    {"fault_float_opt.h5", fx_fault_float_opt},
    {"fault_2d.h5", fx_fault_2d},
    {"fault_end_before_start.h5", fx_fault_end_before_start},
    {"fault_orphan_parent.h5", fx_fault_orphan_parent},
    {"fault_cycle.h5", fx_fault_cycle},
    {"fault_thread_range.h5", fx_fault_thread_range},
    {"fault_task_range.h5", fx_fault_task_range},
    {"fault_await_range.h5", fx_fault_await_range},
    {"fault_hostile_strings.h5", fx_fault_hostile_strings},
    {"fault_huge_string.h5", fx_fault_huge_string},
    {"fault_bad_parent_only.h5", fx_fault_bad_parent_only},
    {"fault_region_no_regions.h5", fx_fault_region_no_regions},
    {"agg4.h5", fx_agg4},
};

static char *join(const char *dir, const char *file)
{
    size_t len = strlen(dir) + strlen(file) + 2;
    char *p = gen_alloc(len, 1);
    snprintf(p, len, "%s/%s", dir, file);
    return p;
}

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(bytes, 1, n, fp) != n || fclose(fp) != 0)
        gen_die("cannot write %s", path);
}

static void *read_all(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp || fseek(fp, 0, SEEK_END) != 0)
        gen_die("cannot read %s", path);
    long size = ftell(fp);
    char *buf = size >= 0 ? gen_alloc((size_t)size + 1, 1) : NULL;
    if (!buf || fseek(fp, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)size, fp) != (size_t)size)
        gen_die("cannot read %s", path);
    fclose(fp);
    *n = (size_t)size;
    return buf;
}

/* Files that are not (whole) HDF5 files: written byte by byte. */
static void write_raw_faults(const char *dir)
{
    char *p = join(dir, "fault_not_hdf5.h5");
    write_bytes(p, "hello\n", 6);
    free(p);
    p = join(dir, "fault_empty.h5");
    write_bytes(p, "", 0);
    free(p);
    char *src = join(dir, "small.h5");
    size_t n = 0;
    void *bytes = read_all(src, &n);
    p = join(dir, "fault_truncated.h5");
    write_bytes(p, bytes, n / 2);
    free(p);
    free(bytes);
    free(src);
}

void scen_fixtures(const char *dir, const int64_t *nums)
{
    (void)nums;
    for (size_t i = 0; i < COUNT(fixtures); i++) {
        char *path = join(dir, fixtures[i].file);
        hid_t f = gen_file_create(path);
        fixtures[i].write(f);
        gen_close(f);
        free(path);
    }
    write_raw_faults(dir);
    scen_fixtures_col(dir);
    scen_fixtures_lanes(dir);
}
