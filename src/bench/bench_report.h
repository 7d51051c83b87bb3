/* bench_report.h - pgrtt bench's results.json rendered as report.md and
 * a self-contained report.html (docs/bench.md). */
#ifndef PGRTT_BENCH_REPORT_H
#define PGRTT_BENCH_REPORT_H

#include <cjson/cJSON.h>

/* 0, or -1 when the file cannot be written. */
int bench_write_md(const char *path, const cJSON *results);
int bench_write_html(const char *path, const cJSON *results);

#endif
