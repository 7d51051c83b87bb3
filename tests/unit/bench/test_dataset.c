/* test_dataset.c - the benchmark's blog: the seed's counts, the same bytes
 * on every call, and the invariants the pages rely on (every reference
 * resolves, each article's tags distinct, values COPY can take as text). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dataset.h"
#include "tinytest.h"

struct acc {
	uint64_t hash;
	size_t bytes;
	bool bad_chars;
	int last_a, tags_of_a[3], ntags, dup_tags, bad_refs;
	enum dataset_table t;
};

static void row(void *ctx, const char *line, size_t len)
{
	struct acc *a = ctx;
	for (size_t i = 0; i < len; i++) {
		a->hash = (a->hash ^ (uint8_t)line[i]) * 0x100000001b3ull;
		if (line[i] == '\\' || (line[i] == '\n' && i != len - 1))
			a->bad_chars = true;
	}
	a->bytes += len;
	int x = 0, y = 0;
	if (a->t == DS_ARTICLE_TAGS && sscanf(line, "%d\t%d", &x, &y) == 2) {
		if (x < 1 || x > DS_ARTICLES_N || y < 1 || y > DS_TAGS_N)
			a->bad_refs++;
		if (x != a->last_a) {
			a->last_a = x;
			a->ntags = 0;
		}
		for (int k = 0; k < a->ntags; k++)
			a->dup_tags += a->tags_of_a[k] == y;
		if (a->ntags < 3)
			a->tags_of_a[a->ntags++] = y;
	}
	if (a->t == DS_COMMENTS && sscanf(line, "%d\t%d", &x, &y) == 2 &&
	    (y < 1 || y > DS_ARTICLES_N))
		a->bad_refs++;
	if (a->t == DS_ARTICLES && sscanf(line, "%d\t%d", &x, &y) == 2 &&
	    (y < 1 || y > DS_AUTHORS_N))
		a->bad_refs++;
}

static void counts_and_determinism(void)
{
	static const size_t want[DS_NTABLES] = {DS_AUTHORS_N, DS_TAGS_N, DS_ARTICLES_N, DS_LINKS_N,
						DS_COMMENTS_N};
	CHECK_EQ_U(DS_LINKS_N, 2600);
	CHECK_EQ_U(DS_COMMENTS_N, 10000);
	for (int t = 0; t < DS_NTABLES; t++) {
		struct acc a = {.hash = 0xcbf29ce484222325ull, .t = (enum dataset_table)t};
		struct acc b = a;
		CHECK_EQ_U(dataset_rows((enum dataset_table)t, row, &a), want[t]);
		CHECK_EQ_U(dataset_rows((enum dataset_table)t, row, &b), want[t]);
		CHECK(a.hash == b.hash && a.bytes == b.bytes); /* the same bytes every time */
		CHECK(!a.bad_chars);
		CHECK_EQ_U(a.dup_tags, 0);
		CHECK_EQ_U(a.bad_refs, 0);
		CHECK(dataset_copy_target((enum dataset_table)t) != NULL);
	}
}

int main(void)
{
	RUN(counts_and_determinism);
	return TT_EXIT();
}
