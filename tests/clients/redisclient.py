#!/usr/bin/python3
"""redisclient.py PORT MODE - Redis clients for the committed captures; each
prints what it sent and the round trips that makes (the NAME.client file),
and the server's own count of the commands it ran (INFO commandstats, reset
first, read on a connection of its own - that connection's CONFIG RESETSTAT
and INFO are in the capture too, 2 commands and 2 round trips).

  redis-py  redis-py (Debian's python3-redis): single commands, a pipeline
            of 10 GETs (one round trip), a MULTI/EXEC pipeline (one), a
            1 MiB value (many segments), pub/sub over RESP2 with 3 messages
  raw       a socket speaking what redis-py does not: inline commands,
            HELLO 3 and a tracking invalidation push, CLIENT REPLY OFF/ON/
            SKIP, an error, MONITOR watching another connection
"""
import re
import socket
import sys
import time

PORT = int(sys.argv[1])
MODE = sys.argv[2]


def stats_conn():
    s = socket.create_connection(("127.0.0.1", PORT))
    return s


def roundtrip(s, data, replies_end):
    """send data, read until the server's bytes end with replies_end"""
    s.sendall(data)
    buf = b""
    while not buf.endswith(replies_end):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf


def commandstats(s):
    s.sendall(b"*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n")
    buf = b""
    while True:
        buf += s.recv(65536)
        m = re.match(rb"\$(\d+)\r\n", buf)
        if m and len(buf) >= m.end() + int(m.group(1)) + 2:
            break
    calls = dict(re.findall(rb"cmdstat_([a-z|_-]+):calls=(\d+)", buf))
    return {k.decode(): int(v) for k, v in calls.items()}


def redis_py():
    import redis
    r = redis.Redis(host="127.0.0.1", port=PORT)
    for i in range(5):
        r.set(f"k{i}", f"v{i}")
    for i in range(5):
        r.get(f"k{i}")
    p = r.pipeline(transaction=False)
    for i in range(10):
        p.get(f"k{i % 5}")
    p.execute()
    t = r.pipeline(transaction=True)
    for i in range(3):
        t.incr("counter")
    t.execute()
    big = b"x" * (256 << 10)
    r.set("big", big)
    assert r.get("big") == big
    ps = r.pubsub()
    ps.subscribe("news", "sports")
    for _ in range(2):
        ps.get_message(timeout=1)  # the confirmations
    for i in range(3):
        r.publish("news" if i % 2 == 0 else "sports", f"m{i}")
    got = 0
    deadline = time.time() + 2
    while got < 3 and time.time() < deadline:
        if ps.get_message(timeout=0.2):
            got += 1
    ps.close()
    r.close()
    print("sent: 5 SET, 5 GET (10 round trips), a pipeline of 10 GET (1), MULTI 3 INCR EXEC (1),"
          " SET and GET of 256 KiB (2), 3 PUBLISH (3); on a pub/sub connection SUBSCRIBE news"
          f" sports (1, 2 confirmations) and {got} messages (pushes)")
    return 10 + 1 + 1 + 2 + 3 + 1


def raw():
    s = socket.create_connection(("127.0.0.1", PORT))
    roundtrip(s, b"PING\r\n", b"+PONG\r\n")  # inline
    roundtrip(s, b"SET a 1\r\n", b"+OK\r\n")
    roundtrip(s, b"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n", b"modules\r\n*0\r\n")
    roundtrip(s, b"*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n", b"+OK\r\n")
    roundtrip(s, b"*2\r\n$3\r\nGET\r\n$1\r\na\r\n", b"$1\r\n1\r\n")
    other = socket.create_connection(("127.0.0.1", PORT))
    roundtrip(other, b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n2\r\n", b"+OK\r\n")
    buf = b""
    while b"invalidate" not in buf:  # the push, answering no command
        buf += s.recv(65536)
    s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n")
    s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n1\r\n" * 3)
    roundtrip(s, b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n", b"+OK\r\n")
    s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n")
    s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n1\r\n")
    roundtrip(s, b"*2\r\n$3\r\nGET\r\n$1\r\nc\r\n", b"$1\r\n1\r\n")
    roundtrip(s, b"NOSUCHCOMMAND x\r\n", b"\r\n")
    mon = socket.create_connection(("127.0.0.1", PORT))
    roundtrip(mon, b"*1\r\n$7\r\nMONITOR\r\n", b"+OK\r\n")
    roundtrip(other, b"*2\r\n$3\r\nGET\r\n$1\r\na\r\n", b"$1\r\n2\r\n")
    buf = b""
    while b'"GET"' not in buf:  # what MONITOR streams: no replies
        buf += mon.recv(65536)
    for c in (s, other, mon):
        c.close()
    print("sent: inline PING and SET a 1 (2 round trips), HELLO 3 (1, other: not the"
          " connection's first), CLIENT TRACKING ON (1), GET a (1), SET a 2 on a second connection (1) and an invalidation push; CLIENT"
          " REPLY OFF, 3 SET, CLIENT REPLY ON (1), CLIENT REPLY SKIP, SET c, GET c (1), an unknown"
          " command (1, an error); MONITOR on a third (1), GET a on the second (1), one line"
          " streamed")
    return 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1


st = stats_conn()
roundtrip(st, b"*2\r\n$6\r\nCONFIG\r\n$9\r\nRESETSTAT\r\n", b"+OK\r\n")
rts = {"redis-py": redis_py, "raw": raw}[MODE]()
calls = commandstats(st)
st.close()
print("server commandstats: " + " ".join(f"{k}={v}" for k, v in sorted(calls.items())))
print(f"round trips: {rts} (and 2 for the statistics)")
