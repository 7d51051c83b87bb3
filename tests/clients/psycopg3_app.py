#!/usr/bin/python3
"""psycopg3_app.py PORT DSN - the blog's three routes on http.server
(threads) and psycopg 3's ConnectionPool (4 connections, autocommit off:
BEGIN before a page's first statement, COMMIT at its end).  The detail
route runs its three statements in pipeline mode with a Sync after each
(psycopg waits for each), and leaving the pipeline sends one more lone
Sync inside the transaction - not a pool's ping.  Each request counts the
statements it ran; GET /stats gives {route: [pages, statements]}, the
truth tests/driver_pages_test.py holds pgrtt's figures to."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from psycopg_pool import ConnectionPool

TS = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')"
INDEX = (
    "SELECT id, author_id, slug, title, " + TS.format("created_at") + " FROM articles"
    " ORDER BY created_at DESC, id LIMIT 20",
    "SELECT id, name FROM authors WHERE id IN (SELECT author_id FROM articles"
    " ORDER BY created_at DESC, id LIMIT 20) ORDER BY id",
    "SELECT at.article_id, t.slug, t.name FROM article_tags at JOIN tags t ON t.id = at.tag_id"
    " WHERE at.article_id IN (SELECT id FROM articles ORDER BY created_at DESC, id LIMIT 20)"
    " ORDER BY at.article_id, t.id")
DETAIL = (
    "SELECT id, author_id, slug, title, body, " + TS.format("created_at") +
    " FROM articles WHERE id = %s",
    "SELECT id, name, bio FROM authors WHERE id = (SELECT author_id FROM articles WHERE id = %s)",
    "SELECT id, author, body, " + TS.format("created_at") +
    " FROM comments WHERE article_id = %s ORDER BY id")
TAG = (
    "SELECT id, slug, name FROM tags WHERE slug = %s",
    "SELECT a.id, a.title FROM articles a JOIN article_tags at ON at.article_id = a.id"
    " JOIN tags t ON t.id = at.tag_id WHERE t.slug = %s ORDER BY a.created_at DESC, a.id LIMIT 20",
    "SELECT DISTINCT au.id, au.name FROM authors au JOIN articles a ON a.author_id = au.id"
    " JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id = at.tag_id"
    " WHERE t.slug = %s ORDER BY au.id",
    "SELECT at2.article_id, t2.slug FROM article_tags at2 JOIN tags t2 ON t2.id = at2.tag_id"
    " WHERE at2.article_id IN (SELECT at.article_id FROM article_tags at JOIN tags t"
    " ON t.id = at.tag_id WHERE t.slug = %s) ORDER BY at2.article_id, t2.id")

pool = ConnectionPool(sys.argv[2], min_size=4, max_size=4)
lock = threading.Lock()
counts = {}


def note(route, statements):
    with lock:
        c = counts.setdefault(route, [0, 0])
        c[0] += 1
        c[1] += statements


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        p, status, body = self.path, 200, b"ok"
        if p == "/stats":
            with lock:
                body = json.dumps(counts).encode()
        elif p == "/":
            with pool.connection() as c:
                for q in INDEX:
                    c.execute(q).fetchall()
            note("GET /", len(INDEX))
        elif p.startswith("/articles/"):
            with pool.connection() as c:
                with c.pipeline() as pipe:
                    curs = []
                    for q in DETAIL:
                        curs.append(c.execute(q, (int(p[10:]),)))
                        pipe.sync()
                for cur in curs:
                    cur.fetchall()
            note("GET /articles/{id}", len(DETAIL))
        elif p.startswith("/tags/"):
            with pool.connection() as c:
                for q in TAG:
                    c.execute(q, (p[6:],)).fetchall()
            note("GET /tags/{slug}", len(TAG))
        else:
            status, body = 404, b"no"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("ready", flush=True)
server.serve_forever()
