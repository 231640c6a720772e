#include "sv_error.h"

#include <stdarg.h>
#include <stdio.h>

sv_err sv_error_set(sv_error *err, sv_err code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void sv_error_clear(sv_error *err)
{
    if (!err)
        return;
    err->code = SV_OK;
    err->msg[0] = '\0';
}

const char *sv_err_name(sv_err code)
{
    static const char *const names[] = {
        [SV_OK] = "ok",
        [SV_ERR_IO] = "i/o error",
        [SV_ERR_NOT_HDF5] = "not an HDF5 file",
        [SV_ERR_DAMAGED] = "damaged file",
        [SV_ERR_FORMAT] = "format error",
        [SV_ERR_NOMEM] = "out of memory",
        [SV_ERR_NO_EVENT_DATA] = "event data unavailable",
        [SV_ERR_NO_THREADS] = "no thread data",
        [SV_ERR_RANGE] = "out of range",
        [SV_ERR_REGEX] = "bad regular expression",
        [SV_ERR_NOT_FOUND] = "not found",
        [SV_ERR_USAGE] = "usage error",
    };
    if ((unsigned)code < sizeof names / sizeof names[0] && names[code])
        return names[code];
    return "error";
}

int sv_err_exit_status(sv_err code)
{
    if (code == SV_OK)
        return 0;
    if (code == SV_ERR_USAGE || code == SV_ERR_REGEX)
        return 2;
    return 1;
}
