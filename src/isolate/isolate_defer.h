/* isolate_defer: the viewer's loading child (isolate.c, defer_stats): the
 * model first, its statistics after (wire_stats.h). */
#ifndef SV_ISOLATE_DEFER_H
#define SV_ISOLATE_DEFER_H

#include "model/profile.h"

/* In the child, after a load with LOAD_FINISH_NONE (e its
 * outcome): drops the regions the statistics would drop (a duration past
 * 2^63 ns: the loader has dropped those ending before they start), sets
 * minimum_start_time and sends the model to data_fd.  tail_fd < 0: that
 * is all (its columns released as they go: the viewer computes the
 * statistics, stats_local.h).  Else it then finishes the profile
 * (statistics, exclusive totals; profile_finish_steps), checks its values
 * (sanity.h) and sends the statistics to tail_fd.  An error goes to
 * data_fd, or to tail_fd once the model is out.  0, or an errno value of
 * a failed write.  shm_sock >= 0: the region columns go in shared memory
 * (wire_send_profile_shm). */
int isolate_defer_send(profile *p, sv_err e, sv_error *err, int data_fd, int tail_fd, int shm_sock);

#endif
