/* queries.h - the SQL of every benchmark app, the same text everywhere (as
 * in the seed: every app sent Go's queries).  Timestamps are formatted by
 * the server in UTC so that every app renders the same bytes.
 *
 * Index: 3 queries; detail: 3 (article, author, all its comments); tag: 4. */
#ifndef PGRTT_BENCH_QUERIES_H
#define PGRTT_BENCH_QUERIES_H

#define Q_TS(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')"

#define Q_INDEX_ARTICLES                                                                   \
	"SELECT id, author_id, slug, title, " Q_TS("created_at") " FROM articles"          \
	" ORDER BY created_at DESC, id LIMIT 20"
#define Q_INDEX_AUTHORS                                                                    \
	"SELECT id, name FROM authors WHERE id IN (SELECT author_id FROM articles"         \
	" ORDER BY created_at DESC, id LIMIT 20) ORDER BY id"
#define Q_INDEX_TAGS                                                                       \
	"SELECT at.article_id, t.slug, t.name FROM article_tags at JOIN tags t ON"         \
	" t.id = at.tag_id WHERE at.article_id IN (SELECT id FROM articles ORDER BY"      \
	" created_at DESC, id LIMIT 20) ORDER BY at.article_id, t.id"

#define Q_DETAIL_ARTICLE                                                                   \
	"SELECT id, author_id, slug, title, body, " Q_TS("created_at")                    \
	" FROM articles WHERE id = $1"
#define Q_DETAIL_AUTHOR                                                                    \
	"SELECT id, name, bio FROM authors WHERE id = (SELECT author_id FROM articles"     \
	" WHERE id = $1)"
#define Q_DETAIL_COMMENTS                                                                  \
	"SELECT id, author, body, " Q_TS("created_at")                                     \
	" FROM comments WHERE article_id = $1 ORDER BY id"

#define Q_TAG_TAG "SELECT id, slug, name FROM tags WHERE slug = $1"
#define Q_TAG_ARTICLES                                                                     \
	"SELECT a.id, a.author_id, a.slug, a.title, " Q_TS("a.created_at")                 \
	" FROM articles a JOIN article_tags at ON at.article_id = a.id JOIN tags t ON"     \
	" t.id = at.tag_id WHERE t.slug = $1 ORDER BY a.created_at DESC, a.id LIMIT 20"
#define Q_TAG_AUTHORS                                                                      \
	"SELECT DISTINCT au.id, au.name FROM authors au JOIN articles a ON a.author_id ="   \
	" au.id JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id ="        \
	" at.tag_id WHERE t.slug = $1 ORDER BY au.id"
#define Q_TAG_TAGS                                                                         \
	"SELECT at2.article_id, t2.slug, t2.name FROM article_tags at2 JOIN tags t2 ON"    \
	" t2.id = at2.tag_id WHERE at2.article_id IN (SELECT at.article_id FROM"          \
	" article_tags at JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1)"             \
	" ORDER BY at2.article_id, t2.id"

#endif
