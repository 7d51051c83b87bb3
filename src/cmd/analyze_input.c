/* analyze_input.c - capture files read into an analysis (analyze, dump, trace, audit). */
#define _DEFAULT_SOURCE /* pcap.h needs the BSD types */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keylog.h"
#include "sources/feed.h"
#include "sources/source.h"
#include "cli/cli.h"
#include "commands.h"
#include "base/escape.h"
#include "base/heap.h"


/* The TTY status line while a large file is read. */
static void show_progress(void *ctx, const char *path, double done, uint64_t packets)
{
	(void)ctx;
	if (done < 0) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\rpgrtt: ");
	esc_term(stderr, path);
	fprintf(stderr, ": %3.0f%%  %llu packets", 100 * done, (unsigned long long)packets);
}

static int read_captures(const struct read_opts *ro, struct analysis *a, bool *partial)
{
	int rc = EXIT_OK;
	int usable = 0;
	*partial = false;
	for (int i = 0; i < ro->nfiles; i++) {
		char err[SOURCE_ERRBUF];
		struct source src;
		if (source_open_file(&src, ro->files[i], ro->filter, ro->progress ? show_progress : NULL,
				     NULL, err) != 0) {
			warnx_("%s: %s", ro->files[i], err);
			rc = EXIT_ERROR;
			continue;
		}
		usable++;
		struct feed f = {a, src.dlt};
		int n;
		bool last = i == ro->nfiles - 1;
		long left = last ? source_left(&src) : -1;
		while ((n = source_dispatch(&src, feed_analysis, &f)) > 0) {
			/* the last file's next dispatch is likely its last: say so
			 * (what the reading leaves to place at the end is less) */
			if (left < 0)
				continue; /* not the last file, or not a regular one */
			long was = left;
			left = source_left(&src);
			if (left >= 0 && left <= was - left)
				analysis_ending(a);
		}
		if (n == SOURCE_ERROR) {
			warnx_("%s: %s", ro->files[i], src.err);
			*partial = true;
			if (rc == EXIT_OK)
				rc = EXIT_PARTIAL;
		}
		source_close(&src);
	}
	if (usable > 0 && rc == EXIT_ERROR)
		*partial = true; /* some files analysed, others not */
	return rc;
}

/* Inputs under this many bytes are attributed on the reading thread: a
 * second thread's start, its pool's pages and the hand-overs cost more
 * than placing takes there; past it, two threads win (docs/perf.md has
 * the runs). */
#define SMALL_INPUT (2u << 20)

/* The regular files named add up to under SMALL_INPUT (standard input and
 * anything else are taken as large). */
static bool small_inputs(const struct read_opts *ro)
{
	unsigned long long total = 0;
	for (int i = 0; i < ro->nfiles; i++) {
		struct stat st;
		if (strcmp(ro->files[i], "-") == 0 || stat(ro->files[i], &st) != 0 ||
		    !S_ISREG(st.st_mode))
			return false;
		total += (unsigned long long)st.st_size;
	}
	return total < SMALL_INPUT;
}

/* A key log's secrets into a: said in a line (how many, what was not
 * read), never its secrets; one anyone may read is warned of. */
static int read_keylog(struct analysis *a, const char *path)
{
	struct keylog_reader r;
	if (analysis_keylog(a, path, &r) != 0) {
		warnx_("%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(path, &st) == 0 && (st.st_mode & S_IROTH))
		warnx_("%s: warning: the key log can be read by anyone, and decrypts what it covers",
		       path);
	char more[96] = "";
	if (r.malformed || r.unknown)
		snprintf(more, sizeof more, " (%llu lines malformed, %llu of labels not read)",
			 (unsigned long long)r.malformed, (unsigned long long)r.unknown);
	warnx_("%s: %llu TLS secrets%s", path, (unsigned long long)r.entries, more);
	return 0;
}

int run_analysis(const struct read_opts *ro, struct analysis_opts *ao, struct analysis *a,
		 bool *partial)
{
	/* huge pages serve the attribution's large, fresh structures; a plain
	 * analysis touches little, and a huge page would be 2 MiB of it */
	if (ro->nhttp_ports)
		heap_prepare(); /* before analysis_init starts its threads */
	read_opts_to_analysis(ro, ao);
	/* files: nothing reads the attribution before the end, so it can run
	 * on a thread of its own - but for small inputs; PGRTT_THREADS=1 or 2
	 * says which (1: one thread, as a live capture) */
	const char *threads = getenv("PGRTT_THREADS");
	bool one = threads && strcmp(threads, "1") == 0;
	ao->threads = one                                    ? 1
		      : threads && strcmp(threads, "2") == 0 ? 2
		      : small_inputs(ro)                     ? 1
							     : 2;
	/* the fit at the end on two whatever the input's size: it grows with
	 * the routes, not the file (docs/perf.md; infer.c starts the second
	 * only where the sample has the tasks for it) */
	ao->fit_threads = one ? 1 : 2;
	*partial = false;
	if (analysis_init(a, ao) != 0) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	for (int i = 0; i < ro->ntls_keylogs; i++) /* the secrets before the first packet */
		if (read_keylog(a, ro->tls_keylogs[i]) != 0)
			return EXIT_ERROR;
	int rc = read_captures(ro, a, partial);
	analysis_finish(a);
	return rc;
}
