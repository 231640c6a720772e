/* demo: a realistic profile of a 2-rank MPI + asyncio + GPU Python app.
 *
 * Each rank runs one asyncio loop on MainThread: task "Task-1 main" drives a
 * PDE solver and trains a surrogate model on the GPU each timestep, and now
 * and then serves a wave of HTTP status requests (tasks that interleave
 * while they await the database; compression runs on a ThreadPoolExecutor).
 * A plain data-loader thread reads batches meanwhile.  Rank 1 computes ~15%
 * slower, so rank 0 waits in `allreduce` (summary-only in the legacy layout).
 * Written as schema 3 by default (demo_col.c), as today's scope-profiler
 * writes.  Fixed seeds: every run writes the same data; the workload's shape
 * (requests, GPU timing gaps) and its jitter come from separate generators,
 * so --seed and --slow change durations but not which calls happen. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "scenarios.h"
#include "sim.h"
#include "demo.h"

#define RUN_PY "/home/ana/surrogate/run.py"
#define SOLVER_PY "/home/ana/surrogate/solver.py"
#define TRAIN_PY "/home/ana/surrogate/train.py"
#define SERVER_PY "/home/ana/surrogate/server.py"
#define LOADER_PY "/home/ana/surrogate/loader.py"
#define TAGS(...)                                                                                  \
    (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *)

const demo_region demo_regions[R_COUNT] = {
    [R_MAIN] = {"main", COL_TASK, RUN_PY, 88,
                "async def main(cfg: Config) -> None:\n"
                "    # One event loop drives the solver, the trainer and the status API.\n"
                "    with profile_region(\"main\"):\n"
                "        mesh = load_mesh(cfg.mesh_path)\n"
                "        for step in range(cfg.num_steps):\n"
                "            await timestep(mesh, step)\n"
                "        await shutdown(reason=\"done\")\n",
                NULL, 0, NULL},
    [R_TIMESTEP] = {"timestep", COL_TASK | COL_META, RUN_PY, 61,
                    "@profile_region(\"timestep\", tags=[\"solver\"])\n"
                    "async def timestep(mesh: Mesh, step: int) -> None:\n"
                    "    \"\"\"Advance the PDE one step, then fit the surrogate on it.\"\"\"\n"
                    "    scope_metadata(step=step)\n"
                    "    A, b = assemble(mesh)\n"
                    "    u = solve(A, b, tol=1e-8)  # CG with an ILU preconditioner\n"
                    "    for batch in loader.batches(u, size=64):\n"
                    "        train_step(model, batch)\n"
                    "    allreduce_grads(model)\n"
                    "    await serve_pending(queue)\n"
                    "    if step % 10 == 9:\n"
                    "        await checkpoint(f\"ckpt/step_{step:05d}.pt\")\n",
                    TAGS("solver"), NULL},
    [R_ASSEMBLE] = {"assemble", COL_TASK, SOLVER_PY, 22,
                    "@profile_region(\"assemble\")\n"
                    "def assemble(mesh):\n"
                    "    # Scatter element matrices into the global CSR matrix.\n"
                    "    rows, cols, vals = mesh.element_triplets()\n"
                    "    A = sp.csr_matrix((vals, (rows, cols)), shape=(mesh.n, mesh.n))\n"
                    "    b = mesh.load_vector()\n"
                    "    return A, b\n",
                    NULL, 0, NULL},
    [R_SOLVE] = {"solve", COL_TASK, SOLVER_PY, 40,
                 "@profile_region(\"solve\", tags=[\"numerics\"])\n"
                 "def solve(A, b, tol=1e-8, maxiter=500):\n"
                 "    x = np.zeros_like(b)\n"
                 "    bnorm = np.linalg.norm(b)\n"
                 "    for it in range(maxiter):\n"
                 "        with profile_region(\"rhs\"):\n"
                 "            r = b - A @ x\n"
                 "        with profile_region(\"precond\"):\n"
                 "            z = ilu.solve(r)\n"
                 "        if np.linalg.norm(r) < tol * bnorm:\n"
                 "            break  # converged\n"
                 "        x += alpha * z\n"
                 "    return x\n",
                 TAGS("numerics"), NULL},
    /* The source file changed after the run: lineno kept, text unavailable. */
    [R_RHS] = {"rhs", COL_TASK, SOLVER_PY, 45, NULL, TAGS("numerics"), NULL},
    [R_PRECOND] = {"precond", COL_TASK, SOLVER_PY, 47,
                   "        with profile_region(\"precond\"):\n"
                   "            z = ilu.solve(r)\n",
                   TAGS("numerics"), NULL},
    [R_TRAIN_STEP] = {"train_step", COL_TASK | COL_GPU | COL_META, TRAIN_PY, 30,
                      "@profile_region(\"train_step\", tags=[\"train\", \"gpu\"], cuda=True)\n"
                      "def train_step(model, batch):\n"
                      "    x, y = (t.to(\"cuda\", non_blocking=True) for t in batch)\n"
                      "    scope_metadata(batch=len(x))\n"
                      "    loss = forward(model, x, y)\n"
                      "    backward(loss)\n"
                      "    optimizer.step(); optimizer.zero_grad(set_to_none=True)\n"
                      "    return loss.item()\n",
                      TAGS("train", "gpu"), NULL},
    [R_FORWARD] = {"forward", COL_TASK | COL_GPU, TRAIN_PY, 18,
                   "@profile_region(\"forward\", cuda=True)\n"
                   "def forward(model, x, y):\n"
                   "    with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                   "        pred = model(x)\n"
                   "        return F.mse_loss(pred, y)  # \"mean\" reduction\n",
                   TAGS("gpu"), NULL},
    [R_BACKWARD] = {"backward", COL_TASK | COL_GPU, TRAIN_PY, 24,
                    "@profile_region(\"backward\", cuda=True)\n"
                    "def backward(loss):\n"
                    "    loss.backward()\n",
                    TAGS("gpu"), NULL},
    [R_CHECKPOINT] = {"io/checkpoint", COL_TASK | COL_META, RUN_PY, 120,
                      "async def checkpoint(path: str) -> None:\n"
                      "    with profile_region(\"io/checkpoint\", tags=[\"io\"]):\n"
                      "        scope_metadata(path=path)\n"
                      "        state = {\"model\": model.state_dict(), \"step\": step}\n"
                      "        blob = serialize(state)\n"
                      "        await loop.run_in_executor(pool, write_atomic, path, blob)\n",
                      TAGS("io"), NULL},
    [R_FLUSH] = {"io/flush", 0, NULL, 0, NULL, TAGS("io"), NULL},
    [R_HANDLE_REQUEST] = {"handle_request", COL_TASK | COL_META, SERVER_PY, 41,
                          "@routes.get(\"/api/v1/items/{item_id}\")\n"
                          "@profile_region(\"handle_request\", tags=[\"http\", \"async\"])\n"
                          "async def handle_request(request: web.Request) -> web.Response:\n"
                          "    \"\"\"Serve one status query; compression runs in the "
                          "executor.\"\"\"\n"
                          "    item_id = int(request.match_info[\"item_id\"])\n"
                          "    rows = await db_query(\"SELECT * FROM items WHERE id = $1\", "
                          "item_id)\n"
                          "    body = await loop.run_in_executor(pool, compress, "
                          "render(rows))\n"
                          "    return web.Response(body=body, headers={\"Content-Encoding\": "
                          "\"gzip\"})\n",
                          TAGS("http", "async"), NULL},
    [R_DB_QUERY] = {"db_query", COL_TASK, SERVER_PY, 28,
                    "@profile_region(\"db_query\", tags=[\"db\"])\n"
                    "async def db_query(sql: str, *args):\n"
                    "    async with pool.acquire() as conn:  # may wait for a free connection\n"
                    "        return await conn.fetch(sql, *args)\n",
                    TAGS("db"), NULL},
    [R_COMPRESS] = {"compress", 0, SERVER_PY, 15,
                    "@profile_region(\"compress\", tags=[\"executor\"])\n"
                    "def compress(payload: bytes, level: int = 6) -> bytes:\n"
                    "    # Runs on a ThreadPoolExecutor worker, off the event loop.\n"
                    "    return zlib.compress(payload, level)\n",
                    TAGS("executor"), NULL},
    [R_LOAD_BATCH] = {"load_batch", COL_META, LOADER_PY, 52,
                      "    def run(self):\n"
                      "        while not self.stopped.is_set():\n"
                      "            with profile_region(\"load_batch\", tags=\"loader\"):\n"
                      "                shard = self.next_shard()\n"
                      "                batch = decode(read_shard(shard), size=64)\n"
                      "                scope_metadata(shard=shard.index, batch=64)\n"
                      "            self.queue.put(batch)\n",
                      NULL, 0, "loader"},
    [R_ALLREDUCE] = {"allreduce", 0, RUN_PY, 70,
                     "        with profile_region(\"allreduce\", summary_only=True, "
                     "tags=[\"mpi\"]):\n"
                     "            comm.Allreduce(MPI.IN_PLACE, grads, op=MPI.SUM)\n",
                     TAGS("mpi"), NULL},
};

const char *const demo_thread_names[T_COUNT] = {"MainThread", "ThreadPoolExecutor-0_0",
                                                "ThreadPoolExecutor-0_1", "data-loader"};

/* ------------------------------------------------------- helpers */

static char *json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *json(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return gen_strdup(buf);
}

/* MEAN scaled by SLOW, +-SPREAD/2 relative jitter. */
static int64_t jit(gen_rng *r, int64_t mean, double spread, double slow)
{
    double f = 1.0 + spread * (gen_rng_unit(r) - 0.5);
    return (int64_t)((double)mean * f * slow);
}

static void op(demo_rank *d, int t, sim_op o)
{
    sim_op_push(&d->sim, t, o);
}

static void enter(demo_rank *d, int t, int region, char *meta, int gpu)
{
    if (d->nopen[t] == 16)
        gen_die("demo script nests too deep");
    d->open[t][d->nopen[t]++] = region;
    op(d, t, (sim_op){.kind = SIM_ENTER, .region = region, .meta = meta, .gpu = gpu});
}

/* The --slow region's calls run slow_factor times as long: extra work of
 * their own just before they return (children unchanged). */
static void leave(demo_rank *d, int t)
{
    int region = d->open[t][--d->nopen[t]];
    double stretch = region == d->opts->slow_region ? d->opts->slow_factor - 1.0 : 0.0;
    op(d, t, (sim_op){.kind = SIM_EXIT, .stretch = stretch});
}

/* NS of work done by a call of REGION outside the loop (executor, loader
 * thread), longer when REGION is the --slow one. */
static int64_t slowed(const demo_rank *d, int region, int64_t ns)
{
    if (region >= 0 && region == d->opts->slow_region)
        return (int64_t)((double)ns * d->opts->slow_factor);
    return ns;
}

static void cpu(demo_rank *d, int t, int64_t ns)
{
    op(d, t, (sim_op){.kind = SIM_CPU, .d = ns});
}

static void exec(demo_rank *d, int t, int region, int64_t ns)
{
    op(d, t, (sim_op){.kind = SIM_EXEC, .region = region, .d = slowed(d, region, ns)});
}

/* A leaf region that only computes. */
static void leaf(demo_rank *d, int t, int region, int64_t ns, int gpu)
{
    enter(d, t, region, NULL, gpu);
    cpu(d, t, ns);
    leave(d, t);
}

/* Warm-up calls and a few others have no CUDA-event timing. */
static int gpu_mode(demo_rank *d, int step)
{
    if (step == 0 || gen_rng_range(&d->rng, 0, 14) == 0)
        return SIM_GPU_MISSING;
    return SIM_GPU_TIMED;
}

/* ---------------------------------------------------- the scripts */

static void script_request(demo_rank *d, int t)
{
    gen_rng *r = &d->rng;
    int item = (int)gen_rng_range(r, 100, 9999);
    char *meta = gen_rng_range(r, 0, 3) ? json("{\"path\": \"/api/v1/items/%d\", \"status\": %d}",
                                               item, item % 17 ? 200 : 404)
                                        : NULL;
    enter(d, t, R_HANDLE_REQUEST, meta, 0);
    cpu(d, t, jit(&d->jrng, 400 * US, 0.5, 1.0));
    for (int q = 0; q < 1 + (item % 3 == 0); q++) {
        enter(d, t, R_DB_QUERY, NULL, 0);
        cpu(d, t, jit(&d->jrng, 120 * US, 0.5, 1.0));
        op(d, t, (sim_op){.kind = SIM_IO, .d = jit(&d->jrng, 6 * MS, 1.4, 1.0)});
        cpu(d, t, jit(&d->jrng, 200 * US, 0.5, 1.0));
        leave(d, t);
    }
    exec(d, t, R_COMPRESS, jit(&d->jrng, 3 * MS, 1.0, 1.0));
    cpu(d, t, jit(&d->jrng, 300 * US, 0.5, 1.0));
    leave(d, t);
}

/* Spawn a wave of request tasks from the main task and await them all. */
static void serve_wave(demo_rank *d, int size)
{
    for (int i = 0; i < size && d->ntasks < DEMO_MAX_TASKS; i++) {
        int t = d->ntasks++;
        script_request(d, t);
        op(d, 0, (sim_op){.kind = SIM_SPAWN, .task = t});
    }
    op(d, 0, (sim_op){.kind = SIM_JOIN});
}

static void script_solve(demo_rank *d)
{
    enter(d, 0, R_SOLVE, NULL, 0);
    for (int it = 0; it < DEMO_SOLVER_ITERS; it++) {
        leaf(d, 0, R_RHS, jit(&d->jrng, 600 * US, 0.3, d->slow), 0);
        leaf(d, 0, R_PRECOND, jit(&d->jrng, 900 * US, 0.3, d->slow), 0);
    }
    cpu(d, 0, 150 * US);
    leave(d, 0);
}

static void script_train(demo_rank *d, int step)
{
    for (int b = 0; b < DEMO_BATCHES; b++) {
        char *meta = json("{\"step\": %d, \"batch\": 64}", step);
        enter(d, 0, R_TRAIN_STEP, meta, gpu_mode(d, step));
        cpu(d, 0, jit(&d->jrng, 300 * US, 0.4, d->slow));
        leaf(d, 0, R_FORWARD, jit(&d->jrng, 2500 * US, 0.3, d->slow), gpu_mode(d, step));
        leaf(d, 0, R_BACKWARD, jit(&d->jrng, 4 * MS, 0.3, d->slow), gpu_mode(d, step));
        cpu(d, 0, jit(&d->jrng, 700 * US, 0.4, d->slow));
        leave(d, 0);
    }
}

/* The straggler (rank 1) arrives last; everyone else waits for it. */
static void script_allreduce(demo_rank *d, int step)
{
    int64_t wait = jit(&d->jrng, 900 * US, 0.5, 1.0);
    if (d->slow < 1.05)
        wait += jit(&d->jrng, 9 * MS, 0.6, 1.0);
    d->allreduce[step] = wait;
    if (d->opts->layout == DEMO_LEGACY) {
        cpu(d, 0, wait);
        return;
    }
    enter(d, 0, R_ALLREDUCE, NULL, 0);
    cpu(d, 0, wait);
    leave(d, 0);
}

static void script_checkpoint(demo_rank *d, int step)
{
    enter(d, 0, R_CHECKPOINT,
          json("{\"step\": %d, \"path\": \"ckpt/step_%05d.pt\", \"bytes\": %d}", step, step,
               52428800 + step * 4096),
          0);
    cpu(d, 0, jit(&d->jrng, 6 * MS, 0.3, d->slow));
    exec(d, 0, R_FLUSH, jit(&d->jrng, 25 * MS, 0.4, 1.0));
    leave(d, 0);
}

static void script_timestep(demo_rank *d, int step)
{
    enter(d, 0, R_TIMESTEP, json("{\"step\": %d}", step), 0);
    leaf(d, 0, R_ASSEMBLE, jit(&d->jrng, 12 * MS, 0.3, d->slow), 0);
    script_solve(d);
    script_train(d, step);
    script_allreduce(d, step);
    if (step % 5 == 2)
        serve_wave(d, 2 + step % 2);
    else
        op(d, 0, (sim_op){.kind = SIM_IO, .d = jit(&d->jrng, 60 * US, 1.0, 1.0)}); /* sleep(0) */
    if (step % 10 == 9)
        script_checkpoint(d, step);
    leave(d, 0);
}

static void script_main(demo_rank *d)
{
    enter(d, 0, R_MAIN, NULL, 0);
    cpu(d, 0, jit(&d->jrng, 35 * MS, 0.2, d->slow)); /* load_mesh */
    for (int step = 0; step < DEMO_STEPS; step++)
        script_timestep(d, step);
    cpu(d, 0, jit(&d->jrng, 8 * MS, 0.2, 1.0)); /* shutdown */
    leave(d, 0);
}

/* The loader thread is not part of the loop: plain back-to-back calls. */
/* The loader thread is not part of the loop: DEMO_LOADS back-to-back calls
 * spread over the run (a fixed count, so a --slow run has the same calls). */
#define DEMO_LOADS 90
static void record_loader(demo_rank *d, int64_t from, int64_t until)
{
    int64_t step = (until - from) / DEMO_LOADS, t = from;
    for (int i = 0; i < DEMO_LOADS; i++) {
        int64_t planned = from + i * step + jit(&d->jrng, 3 * MS, 1.0, 1.0);
        t = planned > t ? planned : t;
        int64_t dur = slowed(d, R_LOAD_BATCH, jit(&d->jrng, 11 * MS, 0.5, d->slow));
        sim_call c = {.region = R_LOAD_BATCH,
                      .thread = T_LOADER,
                      .task = -1,
                      .parent = -1,
                      .start = t,
                      .end = t + dur,
                      .meta = json("{\"shard\": %d, \"batch\": 64}", i)};
        sim_add_call(&d->sim, c);
        t += dur + 150 * US;
    }
}

static void task_names(demo_rank *d)
{
    int number = 1;
    d->task_names[0] = gen_strdup("Task-1 main");
    for (int t = 1; t < d->ntasks; t++) {
        number += 1 + (t % 4 == 0); /* other library tasks take numbers too */
        d->task_names[t] = json("Task-%d handle_request", number + 1);
    }
}

static void simulate(demo_rank *d)
{
    memset(d->nopen, 0, sizeof d->nopen);
    sim_init(&d->sim, DEMO_MAX_TASKS, T_MAIN, 2, T_POOL0, &d->jrng);
    d->ntasks = 1;
    script_main(d);
    int64_t base = DEMO_BASE_NS + d->rank * 310 * US;
    sim_start(&d->sim, 0, base);
    sim_run(&d->sim);
    record_loader(d, base + 4 * MS, d->sim.now - 20 * MS);
    task_names(d);
    /* scope-profiler rebuilds the call graph per lane (thread and task): the
     * outermost call of a task or of an executor thread is a root there,
     * even though the task was spawned from inside another call. */
    for (size_t i = 0; i < d->sim.ncalls; i++) {
        sim_call *c = &d->sim.calls[i];
        const sim_call *p = c->parent >= 0 ? &d->sim.calls[c->parent] : NULL;
        if (p && (p->thread != c->thread || p->task != c->task))
            c->parent = -1;
    }
}

/* ------------------------------------------------ writing a rank */

typedef struct order_key {
    int64_t start;
    size_t index;
} order_key;

static int cmp_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Entry order: what the profiler's call counter would have seen.  Returns
 * the calls' indices in that order and fills ID[index] = call id (1-based). */
static size_t *entry_order(const sim *s, int64_t *id)
{
    order_key *keys = gen_alloc(s->ncalls, sizeof *keys);
    for (size_t i = 0; i < s->ncalls; i++)
        keys[i] = (order_key){s->calls[i].start, i};
    qsort(keys, s->ncalls, sizeof *keys, cmp_order);
    size_t *order = gen_alloc(s->ncalls, sizeof *order);
    for (size_t i = 0; i < s->ncalls; i++) {
        order[i] = keys[i].index;
        id[keys[i].index] = (int64_t)i + 1;
    }
    free(keys);
    return order;
}

typedef struct region_cols {
    size_t n;
    int64_t *v[8]; /* start end call parent thread task await gpu */
    const char **meta;
} region_cols;

static void cols_alloc(region_cols *c, size_t n)
{
    for (int k = 0; k < 8; k++)
        c->v[k] = gen_alloc(n, sizeof(int64_t));
    c->meta = gen_alloc(n, sizeof(char *));
}

static void cols_free(region_cols *c)
{
    for (int k = 0; k < 8; k++)
        free(c->v[k]);
    free(c->meta);
}

static void cols_append(region_cols *c, const sim_call *call, const int64_t *id, size_t index)
{
    size_t i = c->n++;
    int64_t row[8] = {
        call->start,  call->end,  id[index],      call->parent < 0 ? -1 : id[call->parent],
        call->thread, call->task, call->await_ns, call->gpu_ns};
    for (int k = 0; k < 8; k++)
        c->v[k][i] = row[k];
    c->meta[i] = call->meta ? call->meta : "";
}

static void write_region(hid_t rank, const demo_region *reg, const region_cols *c)
{
    gen_cols cols = {.n = c->n,
                     .start = c->v[0],
                     .end = c->v[1],
                     .call_ids = c->v[2],
                     .parent_ids = c->v[3],
                     .thread_ids = c->v[4]};
    if (reg->cols & COL_TASK) {
        cols.task_ids = c->v[5];
        cols.await_times = c->v[6];
    }
    if (reg->cols & COL_GPU)
        cols.gpu_durations = c->v[7];
    if (reg->cols & COL_META)
        cols.event_metadata = c->meta;
    hid_t g = gen_region(rank, reg->name, &cols);
    gen_region_source(g, &(gen_source){reg->file, reg->line, reg->text});
    if (reg->ntags)
        gen_attr_strs(g, "tags", reg->tags, reg->ntags);
    else if (reg->tag)
        gen_attr_str(g, "tags", reg->tag);
    gen_close(g);
}

static void write_calls(hid_t rank, const sim *s)
{
    int64_t *id = gen_alloc(s->ncalls, sizeof *id);
    size_t *order = entry_order(s, id);
    size_t count[R_COUNT] = {0};
    for (size_t i = 0; i < s->ncalls; i++)
        count[s->calls[i].region]++;
    region_cols cols[R_COUNT] = {{0}};
    for (int r = 0; r < R_COUNT; r++)
        cols_alloc(&cols[r], count[r]);
    for (size_t i = 0; i < s->ncalls; i++) {
        const sim_call *c = &s->calls[order[i]];
        cols_append(&cols[c->region], c, id, order[i]);
    }
    for (int r = 0; r < R_COUNT; r++) {
        if (count[r])
            write_region(rank, &demo_regions[r], &cols[r]);
        cols_free(&cols[r]);
    }
    free(order);
    free(id);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* numpy's default (linear) percentile of sorted V. */
static double percentile(const int64_t *v, size_t n, double p)
{
    double pos = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return (double)v[lo] + (pos - (double)lo) * (double)(v[hi] - v[lo]);
}

static void write_allreduce(hid_t rank, const demo_rank *d)
{
    int64_t v[DEMO_STEPS];
    memcpy(v, d->allreduce, sizeof v);
    qsort(v, DEMO_STEPS, sizeof v[0], cmp_i64);
    int64_t total = 0;
    for (int i = 0; i < DEMO_STEPS; i++)
        total += v[i];
    double mean = (double)total / DEMO_STEPS, var = 0;
    for (int i = 0; i < DEMO_STEPS; i++)
        var += ((double)v[i] - mean) * ((double)v[i] - mean);
    const gen_kv kv[] = {
        {"num_calls", GEN_INT, NULL, DEMO_STEPS, 0},
        {"total_ns", GEN_INT, NULL, total, 0},
        {"min_ns", GEN_INT, NULL, v[0], 0},
        {"max_ns", GEN_INT, NULL, v[DEMO_STEPS - 1], 0},
        {"mean_ns", GEN_FLOAT, NULL, 0, mean},
        {"std_ns", GEN_FLOAT, NULL, 0, sqrt(var / DEMO_STEPS)},
        {"p50_ns", GEN_FLOAT, NULL, 0, percentile(v, DEMO_STEPS, 50)},
        {"p95_ns", GEN_FLOAT, NULL, 0, percentile(v, DEMO_STEPS, 95)},
        {"p99_ns", GEN_FLOAT, NULL, 0, percentile(v, DEMO_STEPS, 99)},
    };
    const demo_region *reg = &demo_regions[R_ALLREDUCE];
    hid_t g = gen_region(rank, reg->name, NULL);
    gen_region_source(g, &(gen_source){reg->file, reg->line, reg->text});
    gen_attr_strs(g, "tags", reg->tags, reg->ntags);
    gen_summary(g, "summary", kv, sizeof kv / sizeof kv[0]);
    gen_close(g);
}

static void write_tables(hid_t rank, const demo_rank *d)
{
    int64_t ident[T_COUNT], native[T_COUNT], loop[DEMO_MAX_TASKS];
    for (int t = 0; t < T_COUNT; t++) {
        ident[t] = 139872431646528LL + d->rank * 7340032LL + t * 8392704LL * (t > 0);
        native[t] = 48211 + d->rank * 4 + t;
    }
    gen_thread_table(rank, demo_thread_names, ident, native, T_COUNT);
    for (int t = 0; t < d->ntasks; t++)
        loop[t] = T_MAIN;
    gen_task_table(rank, (const char *const *)d->task_names, loop, (size_t)d->ntasks);
}

static void write_rank(hid_t file, demo_rank *d)
{
    hid_t rank = gen_rank(file, d->rank);
    write_tables(rank, d);
    write_calls(rank, &d->sim);
    write_allreduce(rank, d);
    gen_close(rank);
}

static void free_rank(demo_rank *d)
{
    sim_free(&d->sim);
    for (int t = 0; t < d->ntasks; t++)
        free(d->task_names[t]);
}

static void write_metadata(hid_t file)
{
    static const gen_kv kv[] = {
        {"hostname", GEN_STR, "gpu-node-07", 0, 0},
        {"platform", GEN_STR, "Linux-5.15.0-105-generic-x86_64-with-glibc2.35", 0, 0},
        {"python_version", GEN_STR, "3.11.9", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.3.0", 0, 0},
        {"timestamp", GEN_STR, "2026-11-28T14:03:12.481920", 0, 0},
        {"mpi_size", GEN_INT, NULL, 2, 0},
        {"omp_num_threads", GEN_INT, NULL, 8, 0},
        {"total_cores", GEN_INT, NULL, 64, 0},
        {"cuda_device", GEN_STR, "NVIDIA A100-SXM4-40GB", 0, 0},
        {"user", GEN_STR, "ana", 0, 0},
        {"working_directory", GEN_STR, "/home/ana/surrogate", 0, 0},
    };
    gen_metadata(file, kv, sizeof kv / sizeof kv[0]);
}

static void write_legacy(const char *path, demo_rank *ranks)
{
    hid_t file = gen_file_create(path);
    write_metadata(file);
    for (int r = 0; r < DEMO_RANKS; r++)
        write_rank(file, &ranks[r]);
    gen_close(file);
}

static void run_demo(const char *path, const demo_opts *o)
{
    demo_rank ranks[DEMO_RANKS];
    for (int r = 0; r < DEMO_RANKS; r++) {
        demo_rank *d = &ranks[r];
        memset(d, 0, sizeof *d);
        *d = (demo_rank){.rank = r,
                         .slow = r == 1 ? 1.15 : 1.0,
                         .rng = {0x5c09e0 + (uint64_t)r},
                         .jrng = {0x7a11e0 + (uint64_t)r + o->seed * 0x9e3779b97f4a7c15ULL},
                         .opts = o};
        simulate(d);
    }
    if (o->layout == DEMO_LEGACY)
        write_legacy(path, ranks);
    else
        demo_write_columnar(path, ranks, DEMO_RANKS, o);
    for (int r = 0; r < DEMO_RANKS; r++)
        free_rank(&ranks[r]);
}

static int demo_usage(const char *msg, const char *arg)
{
    fprintf(
        stderr,
        "svgen demo: %s%s%s\nusage: svgen demo [--layout schema3|schema2|legacy|aggregate|capi|json|json-gz] "
        "[--slow REGION=PCT] [--seed N] PATH\n",
        msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

static int parse_slow(const char *arg, demo_opts *o)
{
    const char *eq = strrchr(arg, '=');
    if (!eq)
        return -1;
    char *end = NULL;
    double pct = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !(pct >= 0 && pct <= 10000))
        return -1;
    for (int r = 0; r < R_COUNT; r++)
        if (strlen(demo_regions[r].name) == (size_t)(eq - arg) &&
            strncmp(demo_regions[r].name, arg, (size_t)(eq - arg)) == 0) {
            o->slow_region = r;
            o->slow_factor = 1.0 + pct / 100.0;
            return 0;
        }
    return -1;
}

int scen_demo_main(int argc, char **argv)
{
    demo_opts o = {.layout = DEMO_SCHEMA3, .slow_region = -1, .slow_factor = 1.0};
    bool seeded = false;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--layout") == 0 && v) {
            i++;
            if (strcmp(v, "legacy") == 0)
                o.layout = DEMO_LEGACY;
            else if (strcmp(v, "schema2") == 0)
                o.layout = DEMO_SCHEMA2;
            else if (strcmp(v, "schema3") == 0)
                o.layout = DEMO_SCHEMA3;
            else if (strcmp(v, "aggregate") == 0)
                o.layout = DEMO_AGGREGATE;
            else if (strcmp(v, "capi") == 0)
                o.layout = DEMO_CAPI;
            else if (strcmp(v, "json") == 0)
                o.layout = DEMO_JSON;
            else if (strcmp(v, "json-gz") == 0)
                o.layout = DEMO_JSON_GZ;
            else
                return demo_usage("unknown layout", v);
        } else if (strcmp(a, "--slow") == 0 && v) {
            i++;
            if (parse_slow(v, &o) < 0)
                return demo_usage("--slow wants REGION=PCT with a region of the demo", v);
        } else if (strcmp(a, "--seed") == 0 && v) {
            i++;
            char *end = NULL;
            o.seed = strtoull(v, &end, 10);
            if (end == v || *end || *v == '-')
                return demo_usage("--seed wants a non-negative integer", v);
            seeded = true;
        } else if (a[0] == '-' && a[1]) {
            return demo_usage("unknown option", a);
        } else if (path) {
            return demo_usage("more than one PATH", a);
        } else {
            path = a;
        }
    }
    if (!path)
        return demo_usage("missing PATH", NULL);
    if (o.slow_region >= 0 && !seeded)
        o.seed = 1; /* a second run: its own jitter, still reproducible */
    run_demo(path, &o);
    return 0;
}
