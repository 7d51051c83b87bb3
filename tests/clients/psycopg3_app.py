#!/usr/bin/python3
"""psycopg3_app.py PORT DSN - the blog's three routes on http.server
(threads) and psycopg 3's ConnectionPool (4 connections, autocommit off:
BEGIN before a page's first statement, COMMIT at its end).  The detail
route runs its three statements in pipeline mode with a Sync after each
(psycopg waits for each), and leaving the pipeline sends one more lone
Sync inside the transaction - not a pool's ping.  SESSION_LOOKUP=1: every
page first looks its user up, the same statement on every route, as apps
with sessions do (the transaction's first).  Each request counts the
statements it ran; GET /stats gives {route: [pages, statements]}, the
truth tests/live/driver_pages_test.py holds pgrtt's figures to."""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from psycopg_pool import ConnectionPool

# the SQL, as every driver test app runs it
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "blog_queries.json")) as f:
    SQL = json.load(f)
INDEX, DETAIL, TAG = ([q.replace("$1", "%s") for q in SQL[k]] for k in ("index", "detail", "tag"))
LOOKUP = "SELECT id, name FROM authors WHERE id = %s" if os.environ.get("SESSION_LOOKUP") == "1" \
    else None
N = 1 if LOOKUP else 0

pool = ConnectionPool(sys.argv[2], min_size=4, max_size=4)
lock = threading.Lock()
counts = {}


def note(route, statements):
    with lock:
        c = counts.setdefault(route, [0, 0])
        c[0] += 1
        c[1] += statements


def lookup(c):
    if LOOKUP:
        c.execute(LOOKUP, (1,)).fetchall()


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
                lookup(c)
                for q in INDEX:
                    c.execute(q).fetchall()
            note("GET /", len(INDEX) + N)
        elif p.startswith("/articles/"):
            with pool.connection() as c:
                lookup(c)
                with c.pipeline() as pipe:
                    curs = []
                    for q in DETAIL:
                        curs.append(c.execute(q, (int(p[10:]),)))
                        pipe.sync()
                for cur in curs:
                    cur.fetchall()
            note("GET /articles/{id}", len(DETAIL) + N)
        elif p.startswith("/tags/"):
            with pool.connection() as c:
                lookup(c)
                for q in TAG:
                    c.execute(q, (p[6:],)).fetchall()
            note("GET /tags/{slug}", len(TAG) + N)
        else:
            status, body = 404, b"no"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("ready", flush=True)
server.serve_forever()
