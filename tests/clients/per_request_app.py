#!/usr/bin/python3
"""per_request_app.py PORT DSN - the blog's three routes on http.server
(threads) with a connection per request, as PHP and CGI apps have it:
each page connects (psycopg2, autocommit), runs its statements and closes,
so every page pays a startup round trip beside its statements.
WORKERS=N: a connection per worker instead, as PHP-FPM's persistent
connections, gunicorn's or uWSGI's workers and Django's CONN_MAX_AGE have
it - N workers, each with a connection of its own that it keeps, take the
pages one at a time from a queue that every HTTP connection feeds: a
connection's pages follow one another with nothing on the wire between
them.  With SESSION_LOOKUP=1 every page first looks its user up (the same
statement on every route, as apps with sessions have; counted among its
statements).  SLOW_MS=N: every page takes N ms more after its statements
(a slower instance of the app, tests/live/proxy_pages_test.py).  GET /stats gives
{route: [pages, statements, connections opened]}, the truth
tests/live/driver_pages_test.py holds pgrtt's figures to."""
import json
import os
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg2

# the SQL, as every driver test app runs it
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "blog_queries.json")) as f:
    SQL = json.load(f)
INDEX, DETAIL, TAG = ([q.replace("$1", "%s") for q in SQL[k]] for k in ("index", "detail", "tag"))

LOOKUP = "SELECT id, name FROM authors WHERE id = %s" if os.environ.get("SESSION_LOOKUP") == "1" \
    else None
lock = threading.Lock()
counts = {}


def note(route, statements, opened):
    with lock:
        c = counts.setdefault(route, [0, 0, 0])
        c[0] += 1
        c[1] += statements
        c[2] += opened


SLOW = int(os.environ.get("SLOW_MS", "0")) / 1000


def run_page(conn, stmts, arg):
    cur = conn.cursor()
    if LOOKUP:
        cur.execute(LOOKUP, (1,))
        cur.fetchall()
    for q in stmts:
        cur.execute(q, arg)
        cur.fetchall()
    if SLOW:
        time.sleep(SLOW)


def per_request(route, stmts, arg):
    conn = psycopg2.connect(sys.argv[2])
    try:
        conn.autocommit = True
        run_page(conn, stmts, arg)
    finally:
        conn.close()
    note(route, len(stmts) + (LOOKUP is not None), 1)


pages = queue.Queue()


def worker():
    conn = None
    while True:
        route, stmts, arg, job = pages.get()
        try:
            opened = conn is None
            if opened:
                conn = psycopg2.connect(sys.argv[2])
                conn.autocommit = True
            run_page(conn, stmts, arg)
            note(route, len(stmts) + (LOOKUP is not None), int(opened))
            job["ok"] = True
        except psycopg2.Error:  # the page fails; the next one connects again
            if conn is not None:
                conn.close()
            conn = None
        finally:
            job["done"].set()


def per_worker(route, stmts, arg):
    job = {"ok": False, "done": threading.Event()}
    pages.put((route, stmts, arg, job))
    job["done"].wait()
    if not job["ok"]:
        raise RuntimeError("the page failed")


WORKERS = int(os.environ.get("WORKERS", "0"))
for _ in range(WORKERS):
    threading.Thread(target=worker, daemon=True).start()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        p, status, body = self.path, 200, b"ok"
        if p == "/stats":
            with lock:
                body = json.dumps(counts).encode()
        elif p == "/" or p.startswith("/articles/") or p.startswith("/tags/"):
            if p == "/":
                route, stmts, arg = "GET /", INDEX, None
            elif p.startswith("/articles/"):
                route, stmts, arg = "GET /articles/{id}", DETAIL, (int(p[10:]),)
            else:
                route, stmts, arg = "GET /tags/{slug}", TAG, (p[6:],)
            (per_worker if WORKERS else per_request)(route, stmts, arg)
        else:
            status, body = 404, b"no"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


print("ready", flush=True)
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
