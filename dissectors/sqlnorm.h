/* sqlnorm.h - a statement's text as pg_stat_statements shows it: every
 * constant (string, number, bit string, dollar-quoted literal, a unary
 * minus before a number) replaced by a parameter $k, numbered after the
 * highest $n the text already has, so no value reaches a terminal or a CI
 * log.  Comments are dropped (they carry values too: trace ids, user
 * names) and white space collapses to one space, so a statement prints on
 * one line.  Pure lexing over caller-owned bytes. */
#ifndef PGRTT_SQLNORM_H
#define PGRTT_SQLNORM_H

#include <stdbool.h>
#include <stddef.h>

/* Normalise text[0..n) (up to a NUL) into out (cap >= 16 bytes), always
 * NUL-terminated.  complete is false when text is only a prefix of the
 * statement; then, or when out is full, the result ends in "..." (U+2026)
 * and is cut at a character boundary.  Bytes are copied as they came
 * (identifiers may be UTF-8; the caller escapes for its output).  Returns
 * the length written. */
size_t sql_normalize(const char *text, size_t n, bool complete, char *out, size_t cap);

#endif
