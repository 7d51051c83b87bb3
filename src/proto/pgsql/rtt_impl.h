/* rtt_impl.h - what the round-trip engine's files share: rtt.c frames
 * flights and classifies them, rtt_stmts.c knows statements (their texts
 * classified once per analysis, prepared names, drivers' fingerprints,
 * a startup's parameters). */
#ifndef PGRTT_RTT_IMPL_H
#define PGRTT_RTT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtt.h"

#define RTT_KIND_SELECT_PARAM 5 /* beyond enum sql_kind: "SELECT $1" */

void rtt_set_driver(struct rtt *r, const char *name, int rank);
const char *rtt_driver_from_stmt(const char *s, size_t n);
bool rtt_pooler_stmt_name(const char *s, size_t n);
bool rtt_name_is_global(const char *s, size_t n);
uint64_t rtt_name_hash(const char *s, size_t n);
uint8_t rtt_text_kind(struct rtt *r, const char *q, size_t n, bool parse, bool whole,
		      uint64_t *sig);
void rtt_stmt_put(struct rtt *r, const char *name, size_t n, uint8_t kind, uint64_t sig,
		  uint64_t text);
uint8_t rtt_stmt_get(const struct rtt *r, const char *name, size_t n, uint64_t *sig,
		     uint64_t *text);
uint64_t rtt_keep_text(struct rtt *r, const char *q, size_t n, bool whole);

void rtt_startup_params(struct rtt *r, const struct pgsql_msg *m);

#endif
