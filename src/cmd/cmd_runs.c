/* cmd_runs.c - pgrtt runs: list, show and delete stored runs. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/escape.h"
#include "cli/opts.h"
#include "commands.h"
#include "results.h"
#include "store/store.h"

static void help(FILE *out)
{
	fputs("Usage: pgrtt runs --db FILE|URI [list]   (PGRTT_DB without --db)\n"
	      "       pgrtt runs --db FILE|URI show RUN\n"
	      "       pgrtt runs --db FILE|URI delete RUN\n"
	      "\n"
	      "List the runs stored by 'pgrtt analyze --db', show one (totals, round trips\n"
	      "by class, routes), or delete one with everything stored for it.\n"
	      "The schema is in docs/storage.md; sqlite3 FILE answers anything else.\n"
	      "\n"
	      "Exit status: 0 ok, 2 no such database or run, or not a pgrtt database,\n"
	      "64 usage error.\n",
	      out);
}

/* Stored values came from the network (routes) or a caller (--app,
 * --label, file names): escaped for the terminal, "-" for NULL. */
static const char *term(const char *v, char *buf, size_t cap)
{
	return v ? esc_term_buf(buf, cap, v) : "-";
}

/* The runs table, collected first: its columns are as wide as their
 * widest cell (long labels and app names), counted in characters. */
#define LIST_COLS 9
struct list {
	char *(*cell)[LIST_COLS];
	int n, cap;
	bool failed;
};

static void list_row(void *ctx, int row, int nc, const char *const *names,
		     const char *const *v)
{
	(void)row;
	(void)names;
	struct list *l = ctx;
	if (nc < LIST_COLS || l->failed)
		return;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		char *(*c)[LIST_COLS] = realloc(l->cell, (size_t)cap * sizeof(*c));
		if (!c) {
			l->failed = true;
			return;
		}
		l->cell = c;
		l->cap = cap;
	}
	char b[1024];
	for (int i = 0; i < LIST_COLS; i++)
		l->cell[l->n][i] = strdup(term(v[i], b, sizeof b));
	if (nc > LIST_COLS && v[LIST_COLS]) { /* a fatal finding: its counts are "-", and why */
		char why[1024];
		snprintf(why, sizeof why, "%s  (%s)", l->cell[l->n][LIST_COLS - 1] ? l->cell[l->n][LIST_COLS - 1] : "",
			 term(v[LIST_COLS], b, sizeof b));
		free(l->cell[l->n][LIST_COLS - 1]);
		l->cell[l->n][LIST_COLS - 1] = strdup(why);
	}
	l->n++;
}

static int chars(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void cell(const char *s, int width, bool right, const char *after)
{
	int pad = width - chars(s);
	if (right)
		printf("%*s%s%s", pad > 0 ? pad : 0, "", s, after);
	else
		printf("%s%*s%s", s, pad > 0 ? pad : 0, "", after);
}

static void list_print(const struct list *l)
{
	static const char *const head[LIST_COLS] = {"run", "stored (UTC)", "app",   "labels", "conns",
						    "rfq", "rt",           "pages", "source"};
	static const bool right[LIST_COLS] = {true, false, false, false, true, true, true, true, false};
	int w[LIST_COLS];
	for (int i = 0; i < LIST_COLS; i++) {
		w[i] = chars(head[i]);
		for (int r = 0; r < l->n; r++)
			if (l->cell[r][i] && chars(l->cell[r][i]) > w[i])
				w[i] = chars(l->cell[r][i]);
	}
	for (int r = -1; r < l->n; r++)
		for (int i = 0; i < LIST_COLS; i++) {
			const char *v = r < 0 ? head[i] : l->cell[r][i] ? l->cell[r][i] : "?";
			cell(v, i == LIST_COLS - 1 ? 0 : w[i], right[i], i == LIST_COLS - 1 ? "\n" : "  ");
		}
}

static void list_free(struct list *l)
{
	for (int r = 0; r < l->n; r++)
		for (int i = 0; i < LIST_COLS; i++)
			free(l->cell[r][i]);
	free(l->cell);
}

struct section {
	const char *title; /* printed before the first row, or NULL */
	bool table;        /* name=value pairs on one line, or one "name value" line each */
};

static void section_row(void *ctx, int row, int nc, const char *const *names,
			const char *const *v)
{
	const struct section *sec = ctx;
	char b[1024];
	if (row == 0 && sec->title)
		printf("\n%s:\n", sec->title);
	if (sec->table) {
		for (int i = 0; i < nc; i++)
			printf("  %s=%s", names[i], term(v[i], b, sizeof b));
		putchar('\n');
	} else {
		for (int i = 0; i < nc; i++)
			if (v[i])
				printf("%-26s %s\n", names[i], term(v[i], b, sizeof b));
	}
}

static int show(struct store *s, int64_t id, char *err)
{
	static const struct {
		enum store_listing what;
		struct section sec;
	} parts[] = {
		{STORE_LIST_TOTALS, {NULL, false}},
		{STORE_LIST_LABELS, {"labels", true}},
		{STORE_LIST_CLASSES, {"round trips by class", true}},
		{STORE_LIST_WARNINGS, {"warnings", true}},
		{STORE_LIST_ROUTES, {"routes", true}},
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (store_listing(s, parts[i].what, id, section_row, (void *)&parts[i].sec, err) < 0)
			return -1;
	return 0;
}

static int runs_run(const struct cmd_opts *co, void *state)
{
	(void)state;
	const char *dbpath = co->db.db ? co->db.db : getenv("PGRTT_DB"); /* the team's store */
	char **argv = co->rest;
	int argc = co->nrest;
	int i = 0;
	if (!dbpath) {
		usage_error("--db FILE or URI is required (or PGRTT_DB)");
		return EXIT_USAGE;
	}
	const char *verb = i < argc ? argv[i++] : "list";
	long long id = 0;
	bool needs_id = strcmp(verb, "show") == 0 || strcmp(verb, "delete") == 0;
	if (needs_id) {
		char *end;
		if (i >= argc || (id = strtoll(argv[i], &end, 10)) < 1 || *end) {
			usage_error("%s needs a run number", verb);
			return EXIT_USAGE;
		}
		i++;
	} else if (strcmp(verb, "list") != 0) {
		usage_error("unknown action \"%s\": list, show or delete", verb);
		return EXIT_USAGE;
	}
	if (i < argc) {
		usage_error("unexpected \"%s\"", argv[i]);
		return EXIT_USAGE;
	}
	struct store *s = open_db(dbpath, strcmp(verb, "delete") == 0 ? STORE_WRITE : STORE_READ);
	if (!s)
		return EXIT_ERROR;
	int rc = EXIT_OK;
	char err[STORE_ERRBUF];
	if (needs_id && !store_has_run(s, id)) {
		warnx_("%s: no run %lld (pgrtt runs --db %s lists them)", store_shown(dbpath), (long long)id, store_shown(dbpath));
		rc = EXIT_ERROR;
	} else if (strcmp(verb, "show") == 0) {
		if (show(s, id, err) != 0) {
			warnx_("%s: %s", store_shown(dbpath), err);
			rc = EXIT_ERROR;
		}
	} else if (strcmp(verb, "delete") == 0) {
		if (store_delete_run(s, id, err) == 0) {
			printf("deleted run %lld\n", (long long)id);
		} else {
			warnx_("%s: %s", store_shown(dbpath), err);
			rc = EXIT_ERROR;
		}
	} else {
		struct list l = {NULL, 0, 0, false};
		int n = store_listing(s, STORE_LIST_RUNS, 0, list_row, &l, err);
		if (n < 0) {
			warnx_("%s: %s", store_shown(dbpath), err);
			rc = EXIT_ERROR;
		} else if (l.failed) {
			warnx_("out of memory");
			rc = EXIT_ERROR;
		} else if (n == 0) {
			printf("no runs stored yet (pgrtt analyze --db adds one)\n");
		} else {
			list_print(&l);
		}
		list_free(&l);
	}
	store_close(s);
	return rc;
}

const struct command cmd_runs = {
	.name = "runs",
	.summary = "list, show or delete runs stored with analyze --db",
	.help = help,
	.groups = OPTG_DB_READ,
	.run = runs_run,
};
