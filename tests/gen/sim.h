/* sim: a tiny discrete-event model of one Python process (an asyncio event
 * loop on one thread, an executor pool on other threads) that records
 * profiled calls as scope-profiler would.  Used by the demo scenario.
 *
 * Each asyncio task runs a script of ops.  The loop runs one task at a time
 * (the ready task with the earliest ready time); a task yields at IO, EXEC
 * and JOIN.  A call's await time is its duration minus the CPU time its own
 * task spent inside it, i.e. the time the task was suspended or switched
 * away from.  Parents follow the contextvar rule: the innermost open call of
 * the task, or, for a task's outermost calls, the caller that spawned it. */
#ifndef SV_GEN_SIM_H
#define SV_GEN_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"

typedef enum sim_op_kind {
    SIM_ENTER, /* region, meta, gpu */
    SIM_EXIT,  /* stretch: the call runs this fraction of its duration longer */
    SIM_CPU,   /* d: run on the loop for d ns */
    SIM_IO,    /* d: await I/O that takes d ns */
    SIM_EXEC,  /* region, d: await run_in_executor(work of d ns) on a worker thread */
    SIM_SPAWN, /* task: create_task(task) */
    SIM_JOIN   /* await every task this task spawned so far */
} sim_op_kind;

/* GPU timing of a call. */
enum { SIM_GPU_NONE = 0, SIM_GPU_TIMED = 1, SIM_GPU_MISSING = 2 };

typedef struct sim_op {
    sim_op_kind kind;
    int region;
    int gpu;
    int task;
    int64_t d;
    double stretch;
    char *meta; /* owned JSON (ENTER, EXEC) or NULL */
} sim_op;

typedef struct sim_call {
    int region;
    int thread, task; /* task -1 outside any task */
    int64_t parent;   /* index into sim.calls, -1 none */
    int64_t start, end, await_ns, gpu_ns;
    int64_t cpu;  /* own task's CPU time inside the call */
    int gpu_mode; /* SIM_GPU_* */
    char *meta;   /* owned JSON or NULL */
} sim_call;

typedef struct sim_task {
    sim_op *ops;
    size_t nops, cap, pc;
    int thread;
    int spawner;    /* task that spawned it, -1 for a root task */
    int64_t origin; /* parent call of its outermost calls, -1 none */
    int64_t ready_at;
    int pending; /* spawned tasks not yet finished */
    int state;   /* SIM_IDLE, SIM_READY, SIM_JOINING, SIM_DONE */
    int64_t stack[64];
    int depth;
} sim_task;

typedef struct sim {
    sim_task *tasks;
    int ntasks;
    int64_t *worker_free; /* per executor worker: busy until */
    int nworkers, first_worker_thread;
    sim_call *calls;
    size_t ncalls, callcap;
    int64_t now;
    gen_rng *rng;
} sim;

/* NTASKS tasks on loop thread LOOP_THREAD; NWORKERS executor threads numbered
 * from FIRST_WORKER_THREAD. */
void sim_init(sim *s, int ntasks, int loop_thread, int nworkers, int first_worker_thread,
              gen_rng *rng);
void sim_free(sim *s);

/* Append an op to task T's script. */
void sim_op_push(sim *s, int t, sim_op op);
/* Make root task T ready at time AT (a task started before any profiled call). */
void sim_start(sim *s, int t, int64_t at);
/* Run every task to completion. */
void sim_run(sim *s);

/* Record a call made outside the loop (e.g. a plain thread); returns its index. */
size_t sim_add_call(sim *s, sim_call c);

#endif
