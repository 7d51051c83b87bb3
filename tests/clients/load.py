#!/usr/bin/python3
"""load.py HTTP_PORT CONCURRENCY N PATH... - N requests per worker over keep-alive
connections, CONCURRENCY workers at once, cycling through the paths; prints
how many pages each path got."""
import http.client
import sys
import threading
from collections import Counter

port, conc, n, paths = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
counts = Counter()
lock = threading.Lock()


def worker(k):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(n):
        path = paths[(k + i) % len(paths)]
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        assert r.status == 200, (path, r.status)
        with lock:
            counts[path] += 1
    c.close()


threads = [threading.Thread(target=worker, args=(k,)) for k in range(conc)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(" ".join(f"{p}={counts[p]}" for p in paths))
