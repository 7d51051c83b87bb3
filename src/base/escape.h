/* escape.h - text from the network or a caller, made safe for one sink each.
 *
 * HTTP methods and paths, SQL text, file names, --app and --label values all
 * reach pgrtt's outputs.  Each output format has exactly one function here,
 * and every untrusted string goes through it: a path may not forge a
 * Markdown table cell, start a spreadsheet formula, end a GitHub workflow
 * command, inject markup or move a terminal's cursor.
 */
#ifndef PGRTT_ESCAPE_H
#define PGRTT_ESCAPE_H

#include <stdbool.h>
#include <stdio.h>

/* A terminal: control bytes (C0, DEL, C1 as UTF-8) and bytes that are not
 * UTF-8 as \xHH, a backslash as \\. */
void esc_term(FILE *f, const char *s);

/* The same into buf (cut to cap, always terminated); returns buf. */
char *esc_term_buf(char *buf, size_t cap, const char *s);

/* Text for a store whose text must be UTF-8 (PostgreSQL's): NULL when s is
 * well-formed UTF-8 already (or out of memory), else a malloc'ed copy with
 * each byte that begins no well-formed sequence as \xHH, as on a terminal.
 * A StartupMessage's Latin-1 application_name is a run's text like any
 * other, never a run that cannot be stored. */
char *esc_utf8_dup(const char *s);

/* A GitHub-flavoured Markdown table cell: every ASCII punctuation character
 * that has a meaning there (| ` * _ [ ] < > ! ~ & : @ \ .) is
 * backslash-escaped, so nothing links, embeds, formats or ends the cell;
 * control bytes as \xHH. */
void esc_md(FILE *f, const char *s);

/* A CSV field (RFC 4180): always quoted, quotes doubled; a field that a
 * spreadsheet would read as a formula (= + - @ tab CR first) is prefixed
 * with a single quote (OWASP's advice); control bytes (a newline too: a
 * CSV line is a log line in CI), C1 controls and bytes that are not UTF-8
 * as \xHH, as on a terminal. */
void esc_csv(FILE *f, const char *s);

/* HTML text or attribute value: & < > " ' as entities, control bytes as
 * U+FFFD. */
void esc_html(FILE *f, const char *s);

/* XML 1.0 text or attribute value: as HTML; bytes XML cannot carry at all
 * (C0 other than tab, LF, CR) as '?'. */
void esc_xml(FILE *f, const char *s);

/* A GitHub workflow command's message (property false) or a property value
 * (true): % CR LF, and in properties : and , too, %-encoded. */
void esc_github(FILE *f, const char *s, bool property);

/* A Prometheus label value (text exposition format): backslash, quote and
 * newline escaped as the format says, the rest as it is; a byte that
 * begins no well-formed UTF-8 sequence as the text \xHH, so that a value
 * is always valid UTF-8 and reads back as the name the store holds (a
 * route, an app) - the same series in Grafana from either source. */
void esc_prom_label(FILE *f, const char *s);

/* JSON (RFC 8259 text is UTF-8; cJSON escapes quotes and control bytes but
 * writes other bytes as they are): s with every byte that does not begin a
 * well-formed UTF-8 sequence (RFC 3629: no overlong form, surrogate, or
 * code point past U+10FFFF; none cut short) as U+FFFD, as o's member k
 * (esc_json_add) or a new string (esc_json_string; NULL: out of memory).
 * An application_name, a path or a file name can hold any byte. */
struct cJSON;
struct cJSON *esc_json_string(const char *s);
void esc_json_add(struct cJSON *o, const char *k, const char *s);

#endif
