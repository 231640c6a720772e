#include "gen.h"
#include "scenarios.h"
void scen_legacy(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
void scen_extended(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
void scen_many_regions(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
void scen_deep(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
void scen_cycle_long(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
void scen_hostile(const char *path, const int64_t *nums)
{
    (void)path;
    (void)nums;
    gen_die("todo");
}
