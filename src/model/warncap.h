/* warncap: at most WARN_CAP_PER_KIND warnings of each kind.
 *
 * A hostile or broken file can make the loader warn once per region, per
 * column or per call: a 6 MB file gave 200 000 lines before the viewer
 * started.  The first WARN_CAP_PER_KIND of each kind are kept; the next
 * becomes one line "and N more like it: REASON" whose count grows with
 * every further one (on stderr and in the info view alike).  A warning's
 * kind is its reason: the text after its last ": " (the file, rank, region
 * and dataset before it vary), with digits ignored. */
#ifndef SV_WARNCAP_H
#define SV_WARNCAP_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

#define WARN_CAP_PER_KIND 100

/* Called by profile_warn with the formatted line (in a buffer of cap
 * bytes).  True: append line (possibly rewritten into the "more" line);
 * false: it was counted into its kind's "more" line, which was updated. */
bool warn_cap_admit(profile *p, char *line, size_t cap);
void warn_cap_free(profile *p);

#endif
