#!/usr/bin/python3
"""poolsim.py OUT.pcap SEED [NAME=VALUE...] - a web app on node-postgres'
Pool under load, simulated to a capture: the three routes of
tests/clients/node_pg_app.js (the blog's statements from
tests/clients/blog_queries.json) and their ways of using the pool:

  GET /              a checkout per statement (pool.query)
  GET /articles/{id} a checkout per page: its statements, release
  GET /tags/{slug}   a checkout per page in a transaction: BEGIN ... COMMIT

with the same lookup first on every page (lookup=1), as apps with sessions
do.  Clients send their next request as soon as the last is answered,
cycling the routes over keep-alive connections.  The pool: `pool`
connections opened as needed, a returned connection handed to the oldest
waiting checkout, else kept idle (lifo=1: the latest returned is taken
first, as pg-pool does).  Prints the truth on standard output as JSON,
{route: [pages, statements, BEGIN+COMMIT]}.

What real apps do that the time model (docs/pages.md) does not expect is
what the settings reach for:
  clients=8 pool=4 pages=150  load: pages per client
  app=0.3 db=0.5 net=0.02     mean milliseconds: the app's work between
                              two steps, the server's per statement, the wire
  single=0                    the app's steps overlap (threads, or no CPU
                              shortage)
  single=1                    one thread (Node's event loop): a step waits
                              for the steps before it; a step takes stall
                              ms more with probability stall_p (a request
                              that renders or parses at length, or a
                              process the kernel takes the CPU from)
  single=2                    one thread, and stop-the-world pauses (a
                              collector) of stall ms every stall_every ms
  stall_p=0.02 stall=20 stall_every=200

IPv4/TCP over Ethernet, checksums zero; the app at 127.0.0.2:8080, the
server at 127.0.0.2:5432.  The same seed and settings give the same bytes."""
import heapq
import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SQL = json.load(open(os.path.join(HERE, "..", "clients", "blog_queries.json")))
LOOKUP = "SELECT id, name FROM authors WHERE id = $1"
P = dict(clients=8, pool=4, pages=150, app=0.3, db=0.5, net=0.02, single=0, stall_p=0.02,
         stall=20.0, stall_every=200.0, lifo=1, lookup=1)

SYN, ACK, PSH = 0x02, 0x10, 0x08
CLIENT, SERVER = bytes([127, 0, 0, 1]), bytes([127, 0, 0, 2])
PACKETS = []  # (time in s, order, frame)


def packet(t, src, dst, sport, dport, seq, ack, flags, payload):
    frame = (b"\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x08\x00"
             + struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 0, 0, 64, 6, 0, src, dst)
             + struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff, ack & 0xffffffff,
                           0x50, flags, 65535, 0, 0) + payload)
    PACKETS.append((t, len(PACKETS), frame))


class Tcp:
    """A connection, opened at t: client and server write at times given"""

    def __init__(self, t, cport, sport):
        self.cport, self.sport, self.cseq, self.sseq = cport, sport, 1000, 5000
        packet(t, CLIENT, SERVER, cport, sport, self.cseq, 0, SYN, b"")
        packet(t + 1e-6, SERVER, CLIENT, sport, cport, self.sseq, self.cseq + 1, SYN | ACK, b"")
        self.cseq += 1
        self.sseq += 1
        packet(t + 2e-6, CLIENT, SERVER, cport, sport, self.cseq, self.sseq, ACK, b"")

    def client(self, t, data):
        packet(t, CLIENT, SERVER, self.cport, self.sport, self.cseq, self.sseq, ACK | PSH, data)
        self.cseq += len(data)

    def server(self, t, data):
        packet(t, SERVER, CLIENT, self.sport, self.cport, self.sseq, self.cseq, ACK | PSH, data)
        self.sseq += len(data)


def msg(kind, body):
    return kind + struct.pack("!I", 4 + len(body)) + body


ALL_SQL = [LOOKUP] + SQL["index"] + SQL["detail"] + SQL["tag"]


def rows(sql):
    """A row description and as many rows as the statement's place in
    ALL_SQL, plus one: each statement known by its answer too"""
    desc = msg(b"T", struct.pack("!H", 1) + b"x\0" + struct.pack("!IHIhih", 0, 0, 23, 4, -1, 0))
    row = msg(b"D", struct.pack("!HI", 1, 1) + b"1")
    return desc + row * (1 + ALL_SQL.index(sql))


def extended(sql):
    """Parse/Bind/Describe/Execute/Sync in one write, one argument"""
    bind = (b"\0\0" + struct.pack("!H", 0) + struct.pack("!H", 1) + struct.pack("!I", 1) + b"1"
            + struct.pack("!H", 0))
    return (msg(b"P", b"\0" + sql.encode() + b"\0" + struct.pack("!H", 0)) + msg(b"B", bind)
            + msg(b"D", b"P\0") + msg(b"E", b"\0" + struct.pack("!I", 0)) + msg(b"S", b""))


class Sim:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.events, self.order = [], 0
        self.cpu_free = 0.0
        self.pauses = []
        self.idle, self.waiting, self.conns = [], [], 0
        self.truth = {"GET /": [0, 0, 0], "GET /articles/{id}": [0, 0, 0],
                      "GET /tags/{slug}": [0, 0, 0]}

    def exp(self, mean_ms):
        return self.rnd.expovariate(1 / mean_ms) / 1000 if mean_ms > 0 else 0.0

    def at(self, t, fn):
        self.order += 1
        heapq.heappush(self.events, (t, self.order, fn))

    def paused_until(self, t):
        for a, b in self.pauses:
            if a <= t < b:
                return b
        return t

    def after(self, t, fn):
        """fn, once the app has handled what arrived at t"""
        def handle(t):
            d = self.exp(P["app"])
            if P["single"] != 2 and self.rnd.random() < P["stall_p"]:
                d += self.exp(P["stall"])
            if not P["single"]:
                self.at(t + d, fn)
                return
            start = self.paused_until(max(t, self.cpu_free))  # one thread
            self.cpu_free = self.paused_until(start + d)
            self.at(self.cpu_free, fn)
        self.at(t, handle)

    # the pool
    def acquire(self, t, got):
        if self.idle:
            c = self.idle.pop() if P["lifo"] else self.idle.pop(0)
            self.after(t, lambda t: got(t, c))
        elif self.conns < P["pool"]:
            self.conns += 1
            c = Tcp(t, 42000 + self.conns, 5432)
            c.in_tx = False
            body = struct.pack("!I", 196608) + b"user\0pgrtt\0database\0pgrtt\0\0"
            c.client(t + 1e-5, struct.pack("!I", 4 + len(body)) + body)
            t2 = t + 1e-5 + self.exp(P["db"])
            c.server(t2, msg(b"R", struct.pack("!I", 0)) + msg(b"K", struct.pack("!II", 1, 2))
                     + msg(b"Z", b"I"))
            self.after(t2, lambda t: got(t, c))
        else:
            self.waiting.append(got)

    def release(self, t, c):
        if self.waiting:
            got = self.waiting.pop(0)
            self.after(t, lambda t: got(t, c))
        else:
            self.idle.append(c)

    def statement(self, t, c, sql, done):
        if sql in ("BEGIN", "COMMIT"):
            c.client(t, msg(b"Q", sql.encode() + b"\0"))
            c.in_tx = sql == "BEGIN"
            answer = msg(b"C", sql.encode() + b"\0")
        elif sql in SQL["index"]:  # no arguments: the simple protocol
            c.client(t, msg(b"Q", sql.encode() + b"\0"))
            answer = rows(sql) + msg(b"C", b"SELECT 1\0")
        else:
            c.client(t, extended(sql))
            answer = msg(b"1", b"") + msg(b"2", b"") + rows(sql) + msg(b"C", b"SELECT 1\0")
        t2 = t + P["net"] / 1000 + self.exp(P["db"])
        c.server(t2, answer + msg(b"Z", b"T" if c.in_tx else b"I"))
        self.after(t2, done)

    def statements(self, t, c, todo, done):
        if not todo:
            done(t)
            return
        self.statement(t, c, todo[0], lambda t: self.statements(t, c, todo[1:], done))

    # the routes
    def index(self, t, finish):
        todo = [LOOKUP] * int(P["lookup"]) + SQL["index"]

        def one(t, i):
            if i == len(todo):
                self.count("GET /", len(todo), 0)
                finish(t)
                return
            self.acquire(t, lambda t, c: self.statement(
                t, c, todo[i], lambda t: (self.release(t, c), one(t, i + 1))))
        one(t, 0)

    def checkout_page(self, route, todo, tx):
        def page(t, finish):
            def got(t, c):
                def done(t):
                    self.release(t, c)
                    self.count(route, len(todo) - 2 * tx, 2 * tx)
                    finish(t)
                self.statements(t, c, todo, done)
            self.acquire(t, got)
        return page

    def count(self, route, statements, tx):
        x = self.truth[route]
        x[0] += 1
        x[1] += statements
        x[2] += tx

    def client(self, k):
        lookup = [LOOKUP] * int(P["lookup"])
        routes = [("/articles/3", self.checkout_page("GET /articles/{id}",
                                                     lookup + SQL["detail"], 0)),
                  ("/", self.index),
                  ("/tags/tag-7", self.checkout_page("GET /tags/{slug}", lookup + ["BEGIN"]
                                                     + SQL["tag"] + ["COMMIT"], 1))]
        web = Tcp(0.001 * k, 30000 + k, 8080)
        sent = [0]

        def next_page(t):
            if sent[0] == P["pages"]:
                return
            path, run = routes[(k + sent[0]) % len(routes)]
            sent[0] += 1
            web.client(t, b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())

            def finish(t):
                web.server(t, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                self.at(t + P["net"] / 1000 + self.exp(0.05), next_page)
            self.after(t, lambda t: run(t, finish))
        self.at(0.002 * k + 0.01, next_page)

    def run(self):
        if P["single"] == 2:
            t = 0.0
            while t < 3600:
                t += self.exp(P["stall_every"])
                d = self.exp(P["stall"])
                self.pauses.append((t, t + d))
                t += d
        for k in range(int(P["clients"])):
            self.client(k)
        while self.events:
            t, _, fn = heapq.heappop(self.events)
            fn(t)


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for kv in sys.argv[3:]:
        k, _, v = kv.partition("=")
        if k not in P:
            sys.exit(f"poolsim.py: no setting {k!r} (poolsim.py --help lists them)")
        P[k] = float(v)
    sim = Sim(int(sys.argv[2]))
    sim.run()
    PACKETS.sort()
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for t, _, frame in PACKETS:
            us = int(round((1_700_000_000 + t) * 1e6))
            f.write(struct.pack("<IIII", us // 1_000_000, us % 1_000_000, len(frame), len(frame))
                    + frame)
    print(json.dumps(sim.truth))


if __name__ == "__main__":
    main()
