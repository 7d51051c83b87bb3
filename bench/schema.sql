-- bench/schema.sql - the blog of the benchmark (../shared/seeds, round 2):
-- 10 authors, 30 tags, 1,000 articles, 2,600 article-tag links, 10,000
-- comments.  Rows come from bench/dataset.c, deterministic; every app runs
-- the same SQL text against this schema (bench/queries.h).
DROP TABLE IF EXISTS comments, article_tags, articles, tags, authors;
CREATE TABLE authors (
  id integer PRIMARY KEY,
  name text NOT NULL,
  bio text NOT NULL
);
CREATE TABLE tags (
  id integer PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL
);
CREATE TABLE articles (
  id integer PRIMARY KEY,
  author_id integer NOT NULL REFERENCES authors,
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE TABLE article_tags (
  article_id integer NOT NULL REFERENCES articles,
  tag_id integer NOT NULL REFERENCES tags,
  PRIMARY KEY (article_id, tag_id)
);
CREATE TABLE comments (
  id integer PRIMARY KEY,
  article_id integer NOT NULL REFERENCES articles,
  author text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX articles_created ON articles (created_at DESC);
CREATE INDEX article_tags_tag ON article_tags (tag_id);
CREATE INDEX comments_article ON comments (article_id);
