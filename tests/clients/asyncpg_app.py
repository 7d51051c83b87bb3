#!/usr/bin/python3
"""asyncpg_app.py PORT DSN - the blog's three routes on asyncio and
asyncpg's Pool (4 connections), three ways of checking out: the index
route calls pool.fetch per statement (a checkout, and the pool's reset
query on return, per statement); the detail route takes one connection
per page; the tag route one per page, in a transaction.  asyncpg resets a
connection it gets back with one simple query (pg_advisory_unlock_all,
CLOSE ALL, UNLISTEN *, RESET ALL).  SESSION_LOOKUP=1: every page first
looks its user up, the same statement on every route, as apps with sessions
do (in the page's checkout where it has one; a checkout of its own on the
index).  Each request counts what it ran; GET
/stats gives {route: [pages, statements, checkouts, BEGIN and COMMIT]},
the truth tests/live/driver_pages_test.py holds pgrtt's figures to."""
import asyncio
import json
import os
import sys

import asyncpg

# the SQL, as every driver test app runs it
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "blog_queries.json")) as f:
    SQL = json.load(f)
INDEX, DETAIL, TAG = (SQL[k] for k in ("index", "detail", "tag"))
LOOKUP = "SELECT id, name FROM authors WHERE id = $1" if os.environ.get("SESSION_LOOKUP") == "1" \
    else None
N = 1 if LOOKUP else 0

counts = {}


def note(route, statements, checkouts, tx):
    c = counts.setdefault(route, [0, 0, 0, 0])
    for i, v in enumerate((1, statements, checkouts, tx)):
        c[i] += v


async def page(pool, path):
    if path == "/":
        if LOOKUP:
            await pool.fetch(LOOKUP, 1)
        for q in INDEX:
            await pool.fetch(q)
        note("GET /", len(INDEX) + N, len(INDEX) + N, 0)
    elif path.startswith("/articles/"):
        async with pool.acquire() as con:
            if LOOKUP:
                await con.fetch(LOOKUP, 1)
            for q in DETAIL:
                await con.fetch(q, int(path[10:]))
        note("GET /articles/{id}", len(DETAIL) + N, 1, 0)
    elif path.startswith("/tags/"):
        async with pool.acquire() as con:
            if LOOKUP:
                await con.fetch(LOOKUP, 1)
            async with con.transaction():
                for q in TAG:
                    await con.fetch(q, path[6:])
        note("GET /tags/{slug}", len(TAG) + N, 1, 2)
    else:
        return 404, b"no"
    return 200, b"ok"


async def main():
    pool = await asyncpg.create_pool(sys.argv[2], min_size=4, max_size=4)

    async def serve(reader, writer):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                path = line.decode("latin-1").split(" ")[1]
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
                if path == "/stats":
                    status, body = 200, json.dumps(counts).encode()
                else:
                    status, body = await page(pool, path)
                writer.write(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n" % (status, len(body))
                             + body)
                await writer.drain()
        except (ConnectionError, IndexError):
            pass
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[1]))
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
