#!/usr/bin/python3
"""webapp.py DSN HTTP_PORT POOL - a tiny blog app with known database work per
page, for pgrtt's page attribution tests.

Routes:
  GET /articles/{id}  3 queries: the article, its author, its comments
  GET /               1 query: the latest articles
  GET /tags/{slug}    2 queries: the articles and comments that mention it (a
                      slug of lower-case words, "rust", "open-source": no
                      digit gives it away as one route, route_learn.h)
  GET /health         no query
POOL decides how connections are checked out (psycopg2 pool, autocommit):
  noping      one checkout per query, no check
  ping-query  one checkout per query, each checked with ';' (EmptyQueryResponse)
  ping-page   one checkout per page, checked once with ';'
Round trips per detail page on one idle connection: noping 3, ping-query 6,
ping-page 4.  With SESSION_LOOKUP=1 in the environment every page first
looks its user up (the same statement on every route, as apps with sessions
have), in the page's checkout or one of its own: one query more per page,
and with ping-query its ping.  The server runs until killed; it logs nothing.
"""
import http.server
import os
import re
import sys
import threading

import psycopg2
import psycopg2.pool

DSN, PORT, POOL = sys.argv[1], int(sys.argv[2]), sys.argv[3]
LOOKUP = [("SELECT id, name FROM authors WHERE id = 1", False)] \
    if os.environ.get("SESSION_LOOKUP") == "1" else []
# minconn = maxconn: psycopg2 closes a returned connection when more than
# minconn are idle, which would add a startup to pages under concurrency
pool = psycopg2.pool.ThreadedConnectionPool(16, 16, DSN)
# psycopg2's pool raises when all 16 are out; a page waits for one, as
# every real pool makes it (50 clients on a busy machine: a CI run's pages
# failed, running none of their statements)
slots = threading.BoundedSemaphore(16)
lock = threading.Lock()


def checkout():
    slots.acquire()
    try:
        conn = pool.getconn()
    except psycopg2.Error:
        slots.release()
        raise
    conn.autocommit = True
    if POOL != "noping":
        with conn.cursor() as cur:
            try:
                cur.execute(";")  # the ping: EmptyQueryResponse
            except psycopg2.ProgrammingError:
                pass  # psycopg2 sends it, then refuses the empty result
    return conn


def give_back(conn):
    pool.putconn(conn)
    slots.release()


def run(conn, sql, args=()):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


QUERIES = [
    ("SELECT id, title, body FROM articles WHERE id = %s", True),
    ("SELECT a.name FROM authors a JOIN articles r ON r.author_id = a.id WHERE r.id = %s", True),
    ("SELECT body FROM comments WHERE article_id = %s ORDER BY id", True),
]


TAG_QUERIES = [
    ("SELECT id, title FROM articles WHERE body LIKE %s ORDER BY id LIMIT 10", True),
    ("SELECT count(*) FROM comments WHERE body LIKE %s", True),
]


def page_queries(queries, article):
    rows = []
    queries = LOOKUP + queries
    if POOL == "ping-page":
        conn = checkout()
        try:
            for sql, arg in queries:
                rows.append(run(conn, sql, (article,) if arg else ()))
        finally:
            give_back(conn)
    else:
        for sql, arg in queries:
            conn = checkout()
            try:
                rows.append(run(conn, sql, (article,) if arg else ()))
            finally:
                give_back(conn)
    return rows


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        m = re.fullmatch(r"/articles/(\d+)", self.path)
        if m:
            rows = page_queries(QUERIES, int(m.group(1)))
            self.reply(200, repr(rows))
        elif self.path == "/":
            rows = page_queries([("SELECT id, title FROM articles ORDER BY id DESC LIMIT 10",
                                  False)], 0)
            self.reply(200, repr(rows))
        elif self.path == "/health":
            self.reply(200, "ok")
        elif re.fullmatch(r"/tags/[a-z]+(-[a-z]+)*", self.path):
            rows = page_queries(TAG_QUERIES, "%" + self.path[6:] + "%")
            self.reply(200, repr(rows))
        else:  # a slug lookup: any path costs one query, as in a CMS
            rows = page_queries([("SELECT id FROM articles WHERE title = %s", True)], self.path)
            self.reply(200 if rows[0] else 404, repr(rows))


def setup():
    conn = pool.getconn()
    conn.autocommit = True
    run_ddl = conn.cursor()
    run_ddl.execute("""
        CREATE TABLE IF NOT EXISTS authors (id int PRIMARY KEY, name text);
        CREATE TABLE IF NOT EXISTS articles (id int PRIMARY KEY, author_id int, title text, body text);
        CREATE TABLE IF NOT EXISTS comments (id serial PRIMARY KEY, article_id int, body text);
        INSERT INTO authors VALUES (1, 'Ana') ON CONFLICT DO NOTHING;
        INSERT INTO articles SELECT g, 1, 'Artículo ' || g, 'Texto del artículo ' || g
            FROM generate_series(1, 100) g ON CONFLICT DO NOTHING;
        INSERT INTO comments (article_id, body)
            SELECT g % 100 + 1, 'comentario ' || g FROM generate_series(1, 300) g
            WHERE NOT EXISTS (SELECT 1 FROM comments);
    """)
    run_ddl.close()
    pool.putconn(conn)


if __name__ == "__main__":
    setup()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    print("ready", flush=True)
    server.serve_forever()
