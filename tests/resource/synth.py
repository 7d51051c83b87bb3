#!/usr/bin/python3
"""synth.py SCENARIO N - a synthetic pcap on standard output, for resource
tests: traffic shaped to push pgrtt's memory and time (tests/resource_test.py).

Scenarios (N scales each):
  open-request N   an HTTP request that is never answered (a long poll), then
                   N pages one after another, each with one PostgreSQL query
  long-poll N      the same, and the long poll is answered at the end
  pipelined N      one PostgreSQL connection: N queries in one flight, then N
                   answers
  tiny N           one query answered by N one-column DataRow messages
  declared N       a DataRow declaring 1 GiB of which N MiB are sent, then
                   the connection closes
  ooo-holes N      N PostgreSQL connections, each missing one segment and then
                   sending 700 KB that can never be delivered in order
  many-routes N    N pages of 120 routes (ROUTES), 32 at once (LANES), each on its own
                   PostgreSQL connection: route k runs k % 4 + 1 queries
                   of two statements of its own (240 statements: the fit's
                   features near their cap, 24 candidates a round trip)
  http-pipelined N HTTP connections whose client pipelines: N, each a round of 6
                   requests in one segment (/a/K, /b/K, /c/K 4 times), answered in
                   order, 3 more (/a/K twice, /b/K) sent while the second answer is on its way (9
                   awaiting or being answered: the proxy's request slots grow);
                   route a runs 1 query, b 2, c 3
  split-headers N  N HTTP connections, each a request whose 3 KB cookie header
                   comes in three segments and a response whose header comes
                   in two (the framer copies such blocks: header buffers)
  n-plus-one N     N pages one after another, each running 300 queries (an
                   N+1 page), a packet every microsecond: 300,000 round trips
                   within the first 1,024 pages' 2 s (page_hold.h)

Ethernet/IPv4/TCP with real sequence numbers; checksums are left zero."""
import os
import random
import struct
import sys

out = sys.stdout.buffer
BUF = []
BUF_BYTES = 0
T = [1_700_000_000_000_000]  # ns


def flush():
    global BUF_BYTES
    out.write(b"".join(BUF))
    BUF.clear()
    BUF_BYTES = 0


STEP = [20_000]  # ns between packets


def packet(src, dst, sport, dport, seq, ack, flags, payload):
    global BUF_BYTES
    T[0] += STEP[0]
    ip_len = 40 + len(payload)
    frame = (b"\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x08\x00"
             + struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0, 64, 6, 0, src, dst)
             + struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff, ack & 0xffffffff,
                           0x50, flags, 65535, 0, 0)
             + payload)
    sec, ns = divmod(T[0], 1_000_000_000)
    BUF.append(struct.pack("<IIII", sec, ns // 1000, len(frame), len(frame)) + frame)
    BUF_BYTES += len(frame) + 16
    if BUF_BYTES > 1 << 20:
        flush()


SYN, ACK, PSH, FIN = 0x02, 0x10, 0x08, 0x01
CLIENT, SERVER = bytes([127, 0, 0, 1]), bytes([127, 0, 0, 2])


class Conn:
    def __init__(self, cport, sport):
        self.cport, self.sport = cport, sport
        self.cseq, self.sseq = 1000, 5000
        packet(CLIENT, SERVER, cport, sport, self.cseq, 0, SYN, b"")
        packet(SERVER, CLIENT, sport, cport, self.sseq, self.cseq + 1, SYN | ACK, b"")
        self.cseq += 1
        self.sseq += 1
        packet(CLIENT, SERVER, cport, sport, self.cseq, self.sseq, ACK, b"")

    def c(self, data, flags=ACK | PSH):
        packet(CLIENT, SERVER, self.cport, self.sport, self.cseq, self.sseq, flags, data)
        self.cseq += len(data)

    def s(self, data, flags=ACK | PSH):
        packet(SERVER, CLIENT, self.sport, self.cport, self.sseq, self.cseq, flags, data)
        self.sseq += len(data)

    def close(self):
        self.c(b"", ACK | FIN)
        self.cseq += 1
        self.s(b"", ACK | FIN)
        self.sseq += 1


def msg(t, body):
    return t + struct.pack("!I", 4 + len(body)) + body


def startup(pg):
    body = struct.pack("!I", 196608) + b"user\0pgrtt\0database\0pgrtt\0\0"
    pg.c(struct.pack("!I", 4 + len(body)) + body)
    pg.s(msg(b"R", struct.pack("!I", 0)) + msg(b"K", struct.pack("!II", 1, 2)) + RFQ)


QUERY = msg(b"Q", b"SELECT title FROM articles WHERE id = 7\0")
RFQ = msg(b"Z", b"I")
ANSWER = (msg(b"T", struct.pack("!H", 1) + b"x\0" + struct.pack("!IHIhih", 0, 0, 23, 4, -1, 0))
          + msg(b"D", struct.pack("!HI", 1, 1) + b"1") + msg(b"C", b"SELECT 1\0") + RFQ)


def many_routes(n, routes=120, lanes=32):
    """Pages interleaved step by step over lanes, each an HTTP connection
    with its PostgreSQL connection; a fixed seed, so the capture is the
    same every time."""
    rnd = random.Random(12)
    lane = []
    for k in range(lanes):
        web, pg = Conn(30000 + k, 8080), Conn(31000 + k, 5432)
        startup(pg)
        lane.append([web, pg, []])
    resp = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    started = 0
    while started < n or any(x[2] for x in lane):
        web, pg, todo = x = lane[rnd.randrange(lanes)]
        if not todo:
            if started == n:
                continue
            started += 1
            r = rnd.randrange(routes)
            web.c(b"GET /r%d/%d HTTP/1.1\r\nHost: x\r\n\r\n" % (r, rnd.randrange(10**6)))
            x[2] = [b"SELECT c%d FROM t%d WHERE id = $1\0" % (q % 2, r)
                    for q in range(r % 4 + 1)] + [None]
            continue
        q = todo.pop(0)
        if q is None:
            web.s(resp)
        else:
            pg.c(msg(b"Q", q))
            pg.s(ANSWER)


def main():
    scenario, n = sys.argv[1], int(sys.argv[2])
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
    if scenario in ("open-request", "long-poll"):
        poll = Conn(40000, 8080)
        poll.c(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")  # never answered
        web, pg = Conn(40001, 8080), Conn(40002, 5432)
        startup(pg)
        req = b"GET /p HTTP/1.1\r\nHost: x\r\n\r\n"
        resp = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        for _ in range(n):
            web.c(req)
            pg.c(QUERY)
            pg.s(ANSWER)
            web.s(resp)
        if scenario == "long-poll":
            poll.s(resp)
    elif scenario == "pipelined":
        pg = Conn(40002, 5432)
        startup(pg)
        for i in range(0, n, 100):
            pg.c(QUERY * min(100, n - i), ACK)
        for i in range(0, n, 100):
            pg.s(ANSWER * min(100, n - i), ACK)
    elif scenario == "tiny":
        pg = Conn(40002, 5432)
        startup(pg)
        pg.c(QUERY)
        row = msg(b"D", struct.pack("!HI", 1, 1) + b"1")
        for i in range(0, n, 1000):
            pg.s(row * min(1000, n - i), ACK)
        pg.s(msg(b"C", b"SELECT 1\0") + RFQ)
    elif scenario == "declared":
        pg = Conn(40002, 5432)
        startup(pg)
        pg.c(QUERY)
        pg.s(b"D" + struct.pack("!I", 1 << 30) + struct.pack("!H", 1) + b"\xff" * 1400, ACK)
        chunk = b"\xab" * 65000
        for _ in range(n * 1048576 // len(chunk)):
            pg.s(chunk, ACK)
        pg.close()
    elif scenario == "ooo-holes":
        conns = []
        for k in range(n):
            pg = Conn(20000 + k, 5432)
            startup(pg)
            conns.append(pg)
        seg = b"\x00" * 1400
        for pg in conns:
            pg.sseq += 1400  # the segment the capture lost, never retransmitted
            for _ in range(500):  # 700 KB behind the hole, never acknowledged
                pg.s(seg, ACK)
    elif scenario == "many-routes":  # ROUTES and LANES: other shapes, for benchmarks
        many_routes(n, int(os.environ.get("ROUTES", "120")), int(os.environ.get("LANES", "32")))
    elif scenario == "http-pipelined":
        pg = Conn(40002, 5432)
        startup(pg)
        k = 0

        def req(r):
            nonlocal k
            k += 1
            return b"GET /%s/%d HTTP/1.1\r\nHost: x\r\n\r\n" % (r, k)

        def answer(r):
            for _ in range(b"abc".index(r) + 1):
                pg.c(QUERY)
                pg.s(ANSWER)
        body = b"x" * 3000
        resp = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
        for i in range(n):  # each round on a connection of its own: each grows its slots
            web = Conn(41000 + i, 8080)
            routes = [b"a", b"b", b"c", b"c", b"c", b"c"]
            web.c(b"".join(req(r) for r in routes))
            answer(routes[0])
            web.s(resp)
            answer(routes[1])
            web.s(resp[:100])  # the second answer begins...
            more = [b"a", b"a", b"b"]
            web.c(b"".join(req(r) for r in more))  # ...and three more come
            web.s(resp[100:])
            for r in routes[2:] + more:
                answer(r)
                web.s(resp)
    elif scenario == "split-headers":
        pg = Conn(40002, 5432)
        startup(pg)
        for i in range(n):
            web = Conn(42000 + i % 20000, 8080)
            req = b"GET /r/%d HTTP/1.1\r\nHost: x\r\nCookie: %s\r\n\r\n" % (i, b"c" * 3000)
            web.c(req[:1000])
            web.c(req[1000:2500])
            web.c(req[2500:])
            pg.c(QUERY)
            pg.s(ANSWER)
            resp = b"HTTP/1.1 200 OK\r\nX-Pad: %s\r\nContent-Length: 2\r\n\r\nok" % (b"p" * 2000)
            web.s(resp[:30])
            web.s(resp[30:])
    elif scenario == "n-plus-one":
        STEP[0] = 1_000
        web, pg = Conn(40001, 8080), Conn(40002, 5432)
        startup(pg)
        resp = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        for i in range(n):
            web.c(b"GET /authors/%d HTTP/1.1\r\nHost: x\r\n\r\n" % i)
            for _ in range(300):
                pg.c(QUERY)
                pg.s(ANSWER)
            web.s(resp)
    else:
        sys.exit(f"unknown scenario {scenario}")
    flush()


if __name__ == "__main__":
    main()
