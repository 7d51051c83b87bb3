/* pgsql_summary.h - one-line human summary of a PostgreSQL message. */
#ifndef PGRTT_PGSQL_SUMMARY_H
#define PGRTT_PGSQL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "pgsql.h"

/* Write a summary of m (query text, command tag, status, SQLSTATE ...) into
 * buf[0..cap), NUL-terminated, printable ASCII only.  Passwords, SASL
 * exchanges and cancel keys are never shown, only their sizes.  Query and
 * Parse texts are normalised (sqlnorm.h: constants as $n) unless values. */
void pgsql_summarize(const struct pgsql_msg *m, bool values, char *buf, size_t cap);

#endif
