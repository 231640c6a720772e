/* scenarios: the profiles svgen writes, one entry point per command.
 * NUMS holds the command's numeric arguments, already range-checked. */
#ifndef SV_GEN_SCENARIOS_H
#define SV_GEN_SCENARIOS_H

#include <stdint.h>

/* fixtures.c: every file of tests/gen/FIXTURES.md into directory DIR. */
void scen_fixtures(const char *dir, const int64_t *nums);
/* fixtures_col.c: the columnar, aggregate, C-API and inferred-lane fixtures. */
void scen_fixtures_col(const char *dir);
/* exp_*.h5 and exp.json: one profile in three storages and its statistics (gen_expected.c). */
void scen_expected_set(const char *dir);
/* fixtures_lanes.c: pool.h5, the thread pool of names that differ at their ends. */
void scen_fixtures_lanes(const char *dir);
/* demo.c: the realistic MPI + asyncio + GPU demo profile. */
int scen_demo_main(int argc, char **argv); /* [options] PATH */
/* bench_col.c: a large schema-3 profile, `bench-schema3 PATH --calls N [--gzip]`. */
int scen_bench_schema3_main(int argc, char **argv);
/* stream_gen.c: the out-of-core tests' profiles, `stream-mix PATH --calls N [options]`. */
int scen_stream_mix_main(int argc, char **argv);
/* scenarios.c: large and adversarial profiles. */
void scen_legacy(const char *path, const int64_t *nums);       /* NCALLS */
void scen_extended(const char *path, const int64_t *nums);     /* NCALLS */
void scen_many_regions(const char *path, const int64_t *nums); /* NREGIONS CALLS */
void scen_deep(const char *path, const int64_t *nums);         /* LEVELS */
void scen_cycle_long(const char *path, const int64_t *nums);   /* N */
void scen_hostile(const char *path, const int64_t *nums);

#endif
