/* svgen: writes scope-profiler HDF5 profiles for tests, the demo and
 * benchmarks.  An independent writer: it shares no code with the reader. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_spt.h"
#include "scenarios.h"

#define MAX_NUMS 2

typedef struct command {
    const char *name;
    const char *args; /* usage text after the command name */
    int nnums;        /* numeric arguments after the path */
    int64_t min, max; /* bounds of every numeric argument */
    void (*run)(const char *path, const int64_t *nums);
    const char *help;
} command;

static const command commands[] = {
    {"fixtures", "DIR", 0, 0, 0, scen_fixtures, "every test fixture of tests/gen/FIXTURES.md"},
    {"demo", "[--layout L] [--slow R=PCT] [--seed N] PATH", 0, 0, 0, NULL,
     "realistic 2-rank MPI + asyncio + GPU demo profile; L: schema3 (default), schema2, "
     "legacy, aggregate, capi (PATH_rank<NNNNN>.h5 per rank), json, json-gz (a JSON profile); "
     "--slow: a second run where region "
     "R's calls take PCT% longer"},
    {"bench-schema3", "PATH --calls N [--gzip] [--chunk C] [--json | --flat]", 0, 0, 0, NULL,
     "schema-3 profile of N nested calls with summary_statistics (gzip: deflate 4 + shuffle; "
     "C elements a chunk, else h5py's guess; json: the same calls as a JSON profile, gzip'd "
     "with --gzip; flat: N equal calls of one region, deflate 9 + shuffle, about 1000:1)"},
    {"stream-mix",
     "PATH --calls N [--ranks R] [--threads] [--ids] [--unsorted] [--late-unsorted] [--gzip] "
     "[--schema2] [--chunk C] [--bad-summary]",
     0, 0, 0, NULL,
     "columnar profile for the out-of-core tests: recursion, ties, zero-length and partly "
     "overlapping calls, GPU and await columns"},
    {"legacy", "PATH NCALLS", 1, 6, 1000000000, scen_legacy, "legacy layout, 5 nested regions"},
    {"extended", "PATH NCALLS", 1, 8, 1000000000, scen_extended,
     "extended layout, 2 ranks x 4 threads, every column"},
    {"many-regions", "PATH NREGIONS CALLS_PER_REGION", 2, 1, 10000000, scen_many_regions,
     "one rank, NREGIONS top-level regions"},
    {"deep", "PATH LEVELS", 1, 1, 100000000, scen_deep, "one region nested LEVELS deep by ids"},
    {"cycle-long", "PATH N", 1, 2, 100000000, scen_cycle_long, "parent ids forming one N-cycle"},
    {"hostile", "PATH", 0, 0, 0, scen_hostile, "1000 regions with hostile names and strings"},
    {"spt", "DIR NCALLS", 1, 6, 1000000000, gen_spt_scenario,
     "native traces of a 4-rank run (DIR/run_rank0000R.spt): ranks 0, 1 version 2, ranks 2, 3 "
     "version 1, odd ranks big-endian; about NCALLS nested calls each"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_help(FILE *out)
{
    fputs("usage: svgen COMMAND ARGS...\n\ncommands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-13s %s\n      %s\n", commands[i].name, commands[i].args,
                commands[i].help);
    fputs("  --help        print this help\n", out);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "svgen: %s%s%s (try svgen --help)\n", msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

/* A decimal integer in [MIN, MAX], or -1. */
static int64_t parse_count(const char *s, int64_t min, int64_t max)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    return v;
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_help(stdout);
        return 0;
    }
    if (argc < 2)
        return usage_error("missing command", NULL);
    const command *cmd = find_command(argv[1]);
    if (!cmd)
        return usage_error("unknown command", argv[1]);
    if (strcmp(cmd->name, "demo") == 0)
        return scen_demo_main(argc - 2, argv + 2);
    if (strcmp(cmd->name, "bench-schema3") == 0)
        return scen_bench_schema3_main(argc - 2, argv + 2);
    if (strcmp(cmd->name, "stream-mix") == 0)
        return scen_stream_mix_main(argc - 2, argv + 2);
    if (argc != 3 + cmd->nnums)
        return usage_error("wrong number of arguments, expected", cmd->args);
    int64_t nums[MAX_NUMS] = {0};
    for (int i = 0; i < cmd->nnums; i++) {
        nums[i] = parse_count(argv[3 + i], cmd->min, cmd->max);
        if (nums[i] < 0) {
            fprintf(stderr,
                    "svgen: %s: '%s' is not an integer in [%lld, %lld] (try svgen --help)\n",
                    cmd->name, argv[3 + i], (long long)cmd->min, (long long)cmd->max);
            return 2;
        }
    }
    cmd->run(argv[2], nums);
    return 0;
}
