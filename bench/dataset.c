/* dataset.c - the benchmark's blog, deterministic (see dataset.h). */
#include "dataset.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const words[] = {
	"round", "trip",   "query",  "page",   "pool",  "ping",   "latency", "packet",
	"server", "client", "cache",  "socket", "index", "detail", "tag",     "author",
	"commit", "rollback", "pipeline", "sync", "flush", "ready", "answer", "flight",
};
#define NWORDS (sizeof words / sizeof words[0])

/* xorshift64*: the same stream everywhere */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* n words of text from the stream, space separated, in buf */
static size_t text(char *buf, size_t cap, uint64_t *s, int n)
{
	size_t o = 0;
	for (int i = 0; i < n && o + 16 < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? " " : "", words[next(s) % NWORDS]);
	buf[o] = '\0';
	return o;
}

/* "2026-01-01 00:00:00+00" plus minutes */
static void stamp(char *buf, size_t cap, unsigned minutes)
{
	unsigned d = minutes / 1440, h = minutes / 60 % 24, m = minutes % 60;
	/* January has 31 days; past it, February (the dataset stays within 60 days) */
	unsigned month = d < 31 ? 1 : 2, day = d < 31 ? d + 1 : d - 30;
	snprintf(buf, cap, "2026-%02u-%02u %02u:%02u:00+00", month, day, h, m);
}

const char *dataset_copy_target(enum dataset_table t)
{
	static const char *const targets[] = {
		[DS_AUTHORS] = "authors (id, name, bio)",
		[DS_TAGS] = "tags (id, slug, name)",
		[DS_ARTICLES] = "articles (id, author_id, slug, title, body, created_at)",
		[DS_ARTICLE_TAGS] = "article_tags (article_id, tag_id)",
		[DS_COMMENTS] = "comments (id, article_id, author, body, created_at)",
	};
	return t < DS_NTABLES ? targets[t] : NULL;
}

/* the tags of article a (1-based): 3 for the first 600, 2 for the rest,
 * always distinct */
static int article_tags(int a, int out[3])
{
	int n = a <= DS_LINKS_N - 2 * DS_ARTICLES_N ? 3 : 2;
	int step[3] = {3, 7, 11};
	for (int k = 0; k < n; k++) {
		int t = (a * step[k] + 5 * k) % DS_TAGS_N + 1;
		for (bool dup = true; dup;) {
			dup = false;
			for (int j = 0; j < k; j++)
				if (out[j] == t) {
					dup = true;
					t = t % DS_TAGS_N + 1;
				}
		}
		out[k] = t;
	}
	return n;
}

size_t dataset_rows(enum dataset_table t, dataset_row_fn *fn, void *ctx)
{
	char line[2048], body[1600], ts[32];
	uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)t;
	size_t rows = 0;
	int n;
	switch (t) {
	case DS_AUTHORS:
		for (int i = 1; i <= DS_AUTHORS_N; i++) {
			text(body, sizeof body, &s, 12);
			n = snprintf(line, sizeof line, "%d\tAuthor %d\t%s\n", i, i, body);
			fn(ctx, line, (size_t)n);
			rows++;
		}
		break;
	case DS_TAGS:
		for (int i = 1; i <= DS_TAGS_N; i++) {
			n = snprintf(line, sizeof line, "%d\ttag-%d\tTag %d\n", i, i, i);
			fn(ctx, line, (size_t)n);
			rows++;
		}
		break;
	case DS_ARTICLES:
		for (int i = 1; i <= DS_ARTICLES_N; i++) {
			char title[200];
			text(title, sizeof title, &s, 4);
			text(body, sizeof body, &s, 80);
			stamp(ts, sizeof ts, (unsigned)i * 60);
			n = snprintf(line, sizeof line, "%d\t%d\tarticle-%d\tArticle %d: %s\t%s\t%s\n", i,
				     (i * 7) % DS_AUTHORS_N + 1, i, i, title, body, ts);
			fn(ctx, line, (size_t)n);
			rows++;
		}
		break;
	case DS_ARTICLE_TAGS:
		for (int a = 1; a <= DS_ARTICLES_N; a++) {
			int tags[3];
			int k = article_tags(a, tags);
			for (int j = 0; j < k; j++) {
				n = snprintf(line, sizeof line, "%d\t%d\n", a, tags[j]);
				fn(ctx, line, (size_t)n);
				rows++;
			}
		}
		break;
	case DS_COMMENTS:
		for (int i = 1; i <= DS_COMMENTS_N; i++) {
			text(body, sizeof body, &s, 20);
			stamp(ts, sizeof ts, (unsigned)i * 5);
			n = snprintf(line, sizeof line, "%d\t%d\treader-%d\t%s\t%s\n", i,
				     (i - 1) % DS_ARTICLES_N + 1, i % 97, body, ts);
			fn(ctx, line, (size_t)n);
			rows++;
		}
		break;
	default:
		break;
	}
	return rows;
}
