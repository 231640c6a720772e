/* load_json: scope-profiler's JSON profiles (`.json`, `.json.gz`,
 * format_version 1; doc/FORMAT.md "JSON profiles").  The whole run is one
 * document, read through zlib (gzip or plain text alike) by yajl's
 * event-driven parser: numbers go straight into the regions' columns, no
 * tree is built, so the load holds the columns and little else.  The
 * result is the model a schema-3 file gives (columnar, or aggregate when
 * every region holds only an `aggregate` object). */
#ifndef SV_LOAD_JSON_H
#define SV_LOAD_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "loader_internal.h"

/* True when the file's first bytes are a gzip header or, after white
 * space, the '{' of a JSON object: the JSON loader reads it. */
bool ld_json_sniff(const unsigned char *head, size_t n);

/* Loads the JSON profile at path into c->p (c->path is the escaped name
 * every message starts with).  A malformed document, another format or
 * version, a number out of range or a string past the limit is an error
 * naming the JSON path and byte offset; a bad region or record is dropped
 * with a warning, an unknown key is listed in a warning. */
sv_err ld_load_json(ld_ctx *c, const char *path, uint64_t size, sv_error *err);

#endif
