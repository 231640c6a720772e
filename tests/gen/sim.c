/* sim: discrete-event asyncio model for the demo profile (see sim.h). */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

enum { SIM_IDLE, SIM_READY, SIM_JOINING, SIM_DONE };

/* Executor hand-off latencies: submit to a worker, and wake the task. */
#define SIM_SUBMIT_NS 25000
#define SIM_WAKE_NS 15000

void sim_init(sim *s, int ntasks, int loop_thread, int nworkers, int first_worker_thread,
              gen_rng *rng)
{
    memset(s, 0, sizeof *s);
    s->tasks = gen_alloc((size_t)ntasks, sizeof *s->tasks);
    s->ntasks = ntasks;
    for (int t = 0; t < ntasks; t++) {
        s->tasks[t].thread = loop_thread;
        s->tasks[t].spawner = -1;
        s->tasks[t].origin = -1;
    }
    s->worker_free = gen_alloc((size_t)nworkers, sizeof *s->worker_free);
    s->nworkers = nworkers;
    s->first_worker_thread = first_worker_thread;
    s->rng = rng;
}

void sim_free(sim *s)
{
    for (int t = 0; t < s->ntasks; t++) {
        for (size_t i = s->tasks[t].pc; i < s->tasks[t].nops; i++)
            free(s->tasks[t].ops[i].meta);
        free(s->tasks[t].ops);
    }
    for (size_t i = 0; i < s->ncalls; i++)
        free(s->calls[i].meta);
    free(s->tasks);
    free(s->worker_free);
    free(s->calls);
}

void sim_op_push(sim *s, int t, sim_op op)
{
    sim_task *k = &s->tasks[t];
    if (k->nops == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        sim_op *v = realloc(k->ops, k->cap * sizeof *v);
        if (!v)
            gen_die("out of memory growing a task script");
        k->ops = v;
    }
    k->ops[k->nops++] = op;
}

void sim_start(sim *s, int t, int64_t at)
{
    s->tasks[t].state = SIM_READY;
    s->tasks[t].ready_at = at;
}

size_t sim_add_call(sim *s, sim_call c)
{
    if (s->ncalls == s->callcap) {
        s->callcap = s->callcap ? 2 * s->callcap : 1024;
        sim_call *v = realloc(s->calls, s->callcap * sizeof *v);
        if (!v)
            gen_die("out of memory growing the call list");
        s->calls = v;
    }
    s->calls[s->ncalls] = c;
    return s->ncalls++;
}

/* The call a new call of task K nests in (contextvar semantics). */
static int64_t current_parent(const sim_task *k)
{
    return k->depth ? k->stack[k->depth - 1] : k->origin;
}

static void op_enter(sim *s, int t, sim_op *op)
{
    sim_task *k = &s->tasks[t];
    if (k->depth == (int)(sizeof k->stack / sizeof k->stack[0]))
        gen_die("demo script nests too deep");
    sim_call c = {.region = op->region,
                  .thread = k->thread,
                  .task = t,
                  .parent = current_parent(k),
                  .start = s->now,
                  .end = s->now,
                  .gpu_mode = op->gpu,
                  .meta = op->meta};
    op->meta = NULL;
    k->stack[k->depth++] = (int64_t)sim_add_call(s, c);
}

/* GPU time is a fraction of the host-side time (kernels overlap the launch
 * overhead); SIM_GPU_MISSING marks a call without CUDA-event timing. */
static int64_t gpu_time(sim *s, const sim_call *c)
{
    if (c->gpu_mode == SIM_GPU_NONE)
        return 0;
    if (c->gpu_mode == SIM_GPU_MISSING)
        return -1;
    double frac = 0.55 + 0.35 * gen_rng_unit(s->rng);
    return (int64_t)((double)(c->end - c->start) * frac);
}

static void op_cpu(sim *s, int t, int64_t d);

static void op_exit(sim *s, int t, double stretch)
{
    sim_task *k = &s->tasks[t];
    if (k->depth == 0)
        gen_die("demo script exits a region it never entered");
    if (stretch > 0) /* extra work before leaving: inclusive time x (1 + stretch) */
        op_cpu(s, t,
               (int64_t)((double)(s->now - s->calls[k->stack[k->depth - 1]].start) * stretch));
    sim_call *c = &s->calls[k->stack[--k->depth]];
    c->end = s->now;
    c->await_ns = (c->end - c->start) - c->cpu;
    c->gpu_ns = gpu_time(s, c);
}

static void op_cpu(sim *s, int t, int64_t d)
{
    sim_task *k = &s->tasks[t];
    s->now += d;
    for (int i = 0; i < k->depth; i++)
        s->calls[k->stack[i]].cpu += d;
}

/* Run the work on the worker that frees up first; the task resumes after. */
static void op_exec(sim *s, int t, sim_op *op)
{
    sim_task *k = &s->tasks[t];
    int w = 0;
    for (int i = 1; i < s->nworkers; i++)
        if (s->worker_free[i] < s->worker_free[w])
            w = i;
    int64_t start = s->now + SIM_SUBMIT_NS;
    if (s->worker_free[w] > start)
        start = s->worker_free[w];
    sim_call c = {.region = op->region,
                  .thread = s->first_worker_thread + w,
                  .task = -1,
                  .parent = current_parent(k),
                  .start = start,
                  .end = start + op->d,
                  .meta = op->meta};
    op->meta = NULL;
    sim_add_call(s, c);
    s->worker_free[w] = c.end;
    k->ready_at = c.end + SIM_WAKE_NS;
}

static void op_spawn(sim *s, int t, int child)
{
    sim_task *c = &s->tasks[child];
    c->state = SIM_READY;
    c->ready_at = s->now;
    c->spawner = t;
    c->origin = current_parent(&s->tasks[t]);
    s->tasks[t].pending++;
}

static void task_finished(sim *s, int t)
{
    s->tasks[t].state = SIM_DONE;
    int p = s->tasks[t].spawner;
    if (p >= 0 && --s->tasks[p].pending == 0 && s->tasks[p].state == SIM_JOINING) {
        s->tasks[p].state = SIM_READY;
        s->tasks[p].ready_at = s->now + SIM_WAKE_NS;
    }
}

/* Run task T from its current op until it yields or ends. */
static void run_slice(sim *s, int t)
{
    sim_task *k = &s->tasks[t];
    while (k->pc < k->nops) {
        sim_op *op = &k->ops[k->pc++];
        switch (op->kind) {
        case SIM_ENTER:
            op_enter(s, t, op);
            break;
        case SIM_EXIT:
            op_exit(s, t, op->stretch);
            break;
        case SIM_CPU:
            op_cpu(s, t, op->d);
            break;
        case SIM_IO:
            k->ready_at = s->now + op->d;
            return;
        case SIM_EXEC:
            op_exec(s, t, op);
            return;
        case SIM_SPAWN:
            op_spawn(s, t, op->task);
            break;
        case SIM_JOIN:
            if (k->pending > 0) {
                k->state = SIM_JOINING;
                return;
            }
            break;
        }
    }
    task_finished(s, t);
}

static int next_task(const sim *s)
{
    int best = -1;
    for (int t = 0; t < s->ntasks; t++)
        if (s->tasks[t].state == SIM_READY &&
            (best < 0 || s->tasks[t].ready_at < s->tasks[best].ready_at))
            best = t;
    return best;
}

void sim_run(sim *s)
{
    for (int t = next_task(s); t >= 0; t = next_task(s)) {
        if (s->tasks[t].ready_at > s->now)
            s->now = s->tasks[t].ready_at;
        run_slice(s, t);
    }
    for (int t = 0; t < s->ntasks; t++)
        if (s->tasks[t].state != SIM_DONE && s->tasks[t].nops > 0)
            gen_die("demo script deadlocked in task %d", t);
}
