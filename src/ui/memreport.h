/* memreport: SCOPEVIEW_REPORT_BYTES=1 makes a headless screen say, on
 * stderr once its last frame is printed, how many bytes the process holds
 * allocated (the model, the per-call nesting, the views' indexes: all that
 * is alive then) and how many calls the profile has, for `make bench`'s
 * bytes per call.  The figure is the C library's (mallinfo2: bytes handed
 * out by malloc, mapped blocks included) plus the columns' shared mapping
 * (profile.shared_cols), so it follows whatever the model allocates
 * without naming its arrays. */
#ifndef SV_MEMREPORT_H
#define SV_MEMREPORT_H

#include "model/profile.h"

/* Prints "scopeview: resident bytes N calls C model M" when the variable
 * is set (M: the model's columns and nesting, footprint.h). */
void memreport_maybe(const profile *p);

#endif
