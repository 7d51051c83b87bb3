#!/usr/bin/python3
"""app.py - the benchmark's blog on Python's http.server and SQLAlchemy (a
QueuePool of POOL_MAX connections, pool_pre_ping=True: SQLAlchemy's
documented "SELECT 1" on every checkout) over psycopg2, and redis-py for
the page cache, all from Debian: a real stack as its users run it.  A checkout per page.  The SQL is bench/queries.h's, read
from QUERIES (a JSON file `blogload --queries` writes), $1 bound as :p1.
The pages are rendered byte for byte as the reference app renders them.

Environment: PORT, DATABASE_URL (a libpq DSN), POOL_MAX (16), POOL_MIN (4,
opened up front), QUERIES.  Prints "ready" once it listens."""
import http.server
import json
import os
import re
import sys

import psycopg2
import redis
import sqlalchemy
from sqlalchemy import text

Q = {k: text(re.sub(r"\$1", ":p1", v)) for k, v in json.load(open(os.environ["QUERIES"])).items()}
DSN = os.environ.get("DATABASE_URL", "")
POOL_MAX = int(os.environ.get("POOL_MAX", "16"))
engine = sqlalchemy.create_engine("postgresql+psycopg2://", creator=lambda: psycopg2.connect(DSN),
                                  pool_size=POOL_MAX, max_overflow=0, pool_pre_ping=True)


# the page cache: redis-py's client (python3-redis), its own connection pool
# shared by the threads, as Python apps use it
REDIS = redis.Redis.from_url(os.environ["REDIS_URL"]) if os.environ.get("REDIS_URL") else None


def cached(key, render):
    """The seed's page cache: the page from Redis, or rendered and stored."""
    hit = REDIS.get(key)
    if hit is not None:
        return 200, hit.decode()
    status, body = render()
    if status == 200:
        REDIS.set(key, body.encode())
    return status, body


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        '"', "&quot;")


def head(out, title):
    out.append(f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{esc(title)}"
               f"</title></head><body>\n<h1>{esc(title)}</h1>\n")


def article_list(out, arts, authors, tags):
    out.append("<ul>\n")
    names = {str(a[0]): a[1] for a in authors}
    for a in arts:
        aid = str(a[0])
        line = (f"<li><a href=\"/articles/{esc(aid)}\">{esc(a[3])}</a> by "
                f"{esc(names.get(str(a[1]), ''))}, {esc(a[4])}")
        for t in tags:
            if str(t[0]) == aid:
                line += f" <a href=\"/tags/{esc(t[1])}\">#{esc(t[2])}</a>"
        out.append(line + "</li>\n")
    out.append("</ul>\n</body></html>\n")


def page_index():
    with engine.connect() as c:  # one checkout per page
        arts = c.execute(Q["Q_INDEX_ARTICLES"]).fetchall()
        authors = c.execute(Q["Q_INDEX_AUTHORS"]).fetchall()
        tags = c.execute(Q["Q_INDEX_TAGS"]).fetchall()
    out = []
    head(out, "Latest articles")
    article_list(out, arts, authors, tags)
    return 200, "".join(out)


def page_article(aid):
    with engine.connect() as c:
        art = c.execute(Q["Q_DETAIL_ARTICLE"], {"p1": aid}).fetchall()
        author = c.execute(Q["Q_DETAIL_AUTHOR"], {"p1": aid}).fetchall()
        comments = c.execute(Q["Q_DETAIL_COMMENTS"], {"p1": aid}).fetchall()
    if not art:
        return 404, "status 404\n"
    a = art[0]
    out = []
    head(out, a[3])
    out.append(f"<p class=\"meta\">by {esc(author[0][1]) if author else ''}, {esc(a[5])}</p>\n"
               f"<p>{esc(a[4])}</p>\n<h2>Comments</h2>\n<ul>\n")
    for cm in comments:
        out.append(f"<li><b>{esc(cm[1])}</b> {esc(cm[3])}: {esc(cm[2])}</li>\n")
    out.append("</ul>\n</body></html>\n")
    return 200, "".join(out)


def page_tag(slug):
    with engine.connect() as c:
        tag = c.execute(Q["Q_TAG_TAG"], {"p1": slug}).fetchall()
        arts = c.execute(Q["Q_TAG_ARTICLES"], {"p1": slug}).fetchall()
        authors = c.execute(Q["Q_TAG_AUTHORS"], {"p1": slug}).fetchall()
        tags = c.execute(Q["Q_TAG_TAGS"], {"p1": slug}).fetchall()
    if not tag:
        return 404, "status 404\n"
    out = []
    head(out, f"Articles tagged {tag[0][2]}")
    article_list(out, arts, authors, tags)
    return 200, "".join(out)


def page_compute():
    total = sum(n for n in range(2, 20000) if all(n % d for d in range(2, int(n ** 0.5) + 1)))
    return 200, (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Compute</title>"
                 f"</head><body>\n<h1>Compute</h1>\n<p>{total}</p>\n</body></html>\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes: with Nagle on, the body waits
    # for the client's delayed ACK (40 ms a page on Linux)
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        m = re.fullmatch(r"/articles/(\d{1,9})", path)
        t = re.fullmatch(r"/tags/([^/]+)", path)
        try:
            if path == "/":
                status, body = page_index()
            elif m:
                status, body = page_article(int(m.group(1)))
            elif t:
                status, body = page_tag(t.group(1))
            elif path == "/compute":
                status, body = page_compute()
            elif path == "/cached/" and REDIS:
                status, body = cached("page:/", page_index)
            elif re.fullmatch(r"/cached/articles/\d{1,9}", path) and REDIS:
                aid = path.rsplit("/", 1)[1]
                status, body = cached(f"page:/articles/{aid}", lambda: page_article(int(aid)))
            else:
                status, body = 404, "status 404\n"
        except Exception as e:  # a failed query is a 500, said on stderr
            print(f"app: {e}", file=sys.stderr)
            status, body = 500, "status 500\n"
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's listen backlog is 5: 50 clients connecting at once
    # lose SYNs and wait a second for the retry
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        # a load generator closing its connections at the end is not an error
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


if __name__ == "__main__":
    # the pool's minimum, connected up front
    held = [engine.connect() for _ in range(int(os.environ.get("POOL_MIN", "4")))]
    for c in held:
        c.close()
    server = Server(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Handler)
    print("ready", flush=True)
    server.serve_forever()
