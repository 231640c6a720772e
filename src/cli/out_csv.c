/* --csv: the rows and columns of --json's "regions", one header row of the same key names.
 *
 * RFC 4180 quoting: fields holding a comma, a double quote, CR or LF are quoted, quotes doubled.
 * Lines end in a bare LF, not the RFC's CRLF, so that no output ever holds a control character
 * other than newline (every CSV reader in use accepts LF).  Strings are escaped with
 * text_escape first; lists (threads, tags) are joined with ';'.  A string cell that starts with
 * = + - @ tab or CR is written '... (quoted), so a spreadsheet shows it as text instead of
 * running it as a formula (OWASP, "CSV injection"); --csv-raw turns that off. */
#include <stdlib.h>

#include "outputs.h"

static void csv_header(strbuf *b)
{
    for (size_t k = 0; k < OUT_REGION_NFIELDS; k++) {
        if (k)
            sb_putc(b, ',');
        sb_puts(b, out_region_keys[k]);
    }
    sb_putc(b, '\n');
}

static sv_err csv_region(strbuf *b, const region *r, bool raw, sv_error *err)
{
    out_value v[OUT_REGION_NFIELDS];
    int64_t *threads = NULL;
    sv_err rc = out_region_values(r, v, &threads, err);
    if (rc != SV_OK)
        return rc;
    for (size_t k = 0; k < OUT_REGION_NFIELDS; k++) {
        if (k)
            sb_putc(b, ',');
        out_csv_value_mode(b, &v[k], raw);
    }
    sb_putc(b, '\n');
    free(threads);
    return SV_OK;
}

static sv_err csv_emit(const profile *p, const region_filter *f, FILE *fp, bool raw, sv_error *err)
{
    region **regs = NULL;
    size_t n = 0;
    sv_err rc = out_select(p, f, &regs, &n, err);
    if (rc != SV_OK)
        return rc;
    strbuf b;
    sb_init(&b);
    csv_header(&b);
    for (size_t i = 0; i < n && rc == SV_OK && !ferror(fp); i++) {
        rc = csv_region(&b, regs[i], raw, err);
        if (rc == SV_OK && !out_flush_buf(&b, fp))
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing CSV");
    }
    if (rc == SV_OK && !out_flush_buf(&b, fp))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing CSV");
    sb_free(&b);
    free(regs);
    return rc;
}

sv_err out_csv(const profile *p, const region_filter *f, FILE *fp, sv_error *err)
{
    return csv_emit(p, f, fp, false, err);
}

sv_err out_csv_raw(const profile *p, const region_filter *f, FILE *fp, sv_error *err)
{
    return csv_emit(p, f, fp, true, err);
}
