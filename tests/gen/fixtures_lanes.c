/* fixtures_lanes: pool.h5 of tests/gen/FIXTURES.md, the thread pool whose
 * lane names differ only at their ends.  Every value here is the contract
 * of that page; change both together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_columnar.h"
#include "scenarios.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define STRS(...) ((const char *const[]){__VA_ARGS__})

enum { US = 1000 };

static void fx_pool(hid_t f)
{
    hid_t r0 = gen_rank(f, 0);
    gen_thread_table(r0,
                     STRS("MainThread", "ThreadPoolExecutor-0_0", "ThreadPoolExecutor-0_1",
                          "ThreadPoolExecutor-0_2"),
                     I64(1, 2, 3, 4), I64(11, 12, 13, 14), 4);
    gen_task_table(r0, STRS("Task-1"), I64(0), 1);
    gen_close(gen_region(r0, "main",
                         &(gen_cols){.n = 1,
                                     .start = I64(5000 * US),
                                     .end = I64(9000 * US),
                                     .call_ids = I64(1),
                                     .parent_ids = I64(-1),
                                     .thread_ids = I64(0),
                                     .task_ids = I64(0)}));
    gen_close(gen_region(
        r0, "compress",
        &(gen_cols){.n = 6,
                    .start = I64(100 * US, 3100 * US, 200 * US, 3200 * US, 300 * US, 3300 * US),
                    .end = I64(1600 * US, 4600 * US, 1700 * US, 4700 * US, 1800 * US, 4800 * US),
                    .call_ids = I64(2, 3, 4, 5, 6, 7),
                    .parent_ids = I64(-1, -1, -1, -1, -1, -1),
                    .thread_ids = I64(1, 1, 2, 2, 3, 3),
                    .task_ids = I64(-1, -1, -1, -1, -1, -1)}));
    gen_close(r0);
}

/* tasks_unfinished.h5: schema 3, one rank; region serve (tags ["net",
 * "hot"]) called three times, 400 then 100 and 150 ns (a warm-up), on two
 * tasks of MainThread, the second never finished (done_ns -1). */
static void fx_tasks_unfinished(const char *path)
{
    static const int64_t start[] = {100, 600, 800}, end[] = {500, 700, 950};
    static const int64_t thread[] = {0, 0, 0}, task[] = {0, 1, 1};
    gc_row row = {.region = "serve",
                  .rank = 0,
                  .n = 3,
                  .start = start,
                  .end = end,
                  .opt = {[GC_THREAD] = thread, [GC_TASK] = task},
                  .tags_json = "[\"net\", \"hot\"]"};
    static const gc_thread threads[] = {{0, 0, 11, 101, 0, 0, -1, 500, "MainThread"}};
    static const gc_task tasks[] = {
        {0, 0, 0, 90, 520, 2, 400, 20, "task", "Task-1", "serve"},
        {0, 1, 0, 590, -1, 2, 250, 0, "task", "Task-2", "serve"},
    };
    gc_profile p = {.rows = &row, .nrows = 1, .threads = threads, .nthreads = 1,
                    .tasks = tasks, .ntasks = 2};
    gc_write(path, &p, &(gc_opts){.timing = 3});
}

void scen_fixtures_lanes(const char *dir)
{
    size_t tl = strlen(dir) + sizeof "/tasks_unfinished.h5";
    char *tp = gen_alloc(tl, 1);
    snprintf(tp, tl, "%s/tasks_unfinished.h5", dir);
    fx_tasks_unfinished(tp);
    free(tp);
    size_t len = strlen(dir) + sizeof "/pool.h5";
    char *path = gen_alloc(len, 1);
    snprintf(path, len, "%s/pool.h5", dir);
    hid_t f = gen_file_create(path);
    fx_pool(f);
    gen_close(f);
    free(path);
}
