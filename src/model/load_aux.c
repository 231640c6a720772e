/* load_aux: see load_aux.h.  (Stub until the records are read.) */
#include "load_aux.h"

sv_err load_aux_rank(h5u_reader *rd, profile *p, rank_data *rk, hid_t rg, sv_error *err)
{
    (void)rd;
    (void)p;
    (void)rk;
    (void)rg;
    (void)err;
    return SV_OK;
}
