#!/usr/bin/python3
"""hostile_utf8.py HTTP_PORT - bytes that are not UTF-8 where pgrtt's
outputs carry text: request paths in Latin-1 and in an overlong form, sent
raw on a socket (http.client would refuse them), each looked up by the blog
app (one query); and a psql session whose application_name is not UTF-8
(libpq sends it as given).  Prints what it sent, then sent=N."""
import os
import socket
import subprocess
import sys

port = int(sys.argv[1])
for path in (b"/caf\xe9", b"/\xc0\xaf\xff"):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    resp = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        resp += chunk
    s.close()
    print(f"GET {path!r} -> {resp.split(b' ', 2)[1].decode()}")
env = dict(os.environb)
env[b"PGAPPNAME"] = b"app\xff\xfe"
out = subprocess.run([b"psql", b"-X", b"-qAt", b"-c", b"SELECT 1"], env=env, capture_output=True)
print(f"psql, application_name b'app\\xff\\xfe' -> {out.stdout.decode().strip()}")
print("sent=3")
