#!/usr/bin/python3
"""proxy_pages_test.py PGRTT BLOGLOAD SRCDIR - a reverse proxy in front of
the application, both ports given to --http-port: every page is on the wire
twice, and must be counted once (src/attrib/page_twins.h).

nginx (Debian's) passes every request on to tests/clients/per_request_app.py
(a connection per worker, WORKERS=4) over kept-alive connections, under 8
clients on three routes through nginx, half of the requests under /api/,
a prefix nginx strips (location /api/ { proxy_pass http://app/; }); the
app counts its pages and statements.
 - both ports: the proxy's pages left out and said so (proxied-pages, JSON
   http.proxies: the proxy, what it passes to, every one of its pages left
   out), every route's pages the app's, its figures those of the app's
   port alone and within 5% of what the app ran (before: every route's
   pages twice, its figures halved);
 - the same with --route-values 0: the first pages are held all the same,
   none of the proxy's counted twice;
 - the app's port alone, the proxy's alone: no such note, every page once.
Then what must not be taken for a proxy: two instances of the app, both
ports given, 8 clients on each on the same path at once, one instance
answering four times as fast as the other (a page of the slow one holds the
fast one's) - no page left out, no note.
Needs the test cluster (PGRTT_PGPORT) and nginx."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, finish, skip  # noqa: E402
from livelib import blog_database, capture, free_port  # noqa: E402

PGRTT, BLOGLOAD, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
PORT = os.environ.get("PGRTT_PGPORT")
ROUTES = ["/articles/3", "/", "/tags/tag-7"]
NGINX_CONF = """worker_processes 1; daemon off; pid {tmp}/nginx.pid; error_log {tmp}/nginx.err;
events {{ worker_connections 256; }}
http {{
  access_log off;
  upstream app {{ server 127.0.0.1:{app}; keepalive 8; }}
  server {{
    listen 127.0.0.1:{proxy};
    location / {{ proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }}
    location /api/ {{ proxy_pass http://app/; proxy_http_version 1.1; proxy_set_header Connection ""; }}
  }}
}}
"""


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return r.status, r.read()


def stats(port):
    return json.loads(get(port, "/stats")[1])


def load(port, conc, n, paths):
    subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"),
                    str(port), str(conc), str(n)] + paths, check=True, capture_output=True)


def start(argv, env, port, log):
    p = subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)
    for _ in range(200):
        try:
            if get(port, "/stats")[0] == 200:
                return p
        except OSError:
            time.sleep(0.1)
    return p


def stop(p):
    os.killpg(p.pid, signal.SIGTERM)
    p.wait(timeout=30)


def app_argv(port, dsn):
    return ["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "per_request_app.py"),
            str(port), dsn]


def delta(after, before):
    return {r: [x - y for x, y in zip(a, before.get(r, [0, 0, 0]))] for r, a in after.items()
            if a[0] > before.get(r, [0])[0]}


def analyze(pcap, *ports, more=()):
    argv = [PGRTT, "analyze", "-p", PORT, "-F", "json", "--no-progress", *more]
    for p in ports:
        argv += ["--http-port", str(p)]
    p = subprocess.run(argv + [pcap], capture_output=True, text=True)
    check(f"analyze {' '.join(more)} with --http-port {' '.join(map(str, ports))} exits 0",
          p.returncode, 0)
    return json.loads(p.stdout)


def codes(d):
    return [w["code"] for w in d["warnings"]]


def routes(d):
    return {r["route"]: r for r in d["routes"] if r["route"] != "GET /stats"}


def within(got, want, pct=0.05):
    return got is not None and abs(got - want) <= pct * want


def proxied(dsn, tmp):
    app_port, proxy_port = free_port(), free_port()
    with open(os.path.join(tmp, "nginx.conf"), "w") as f:
        f.write(NGINX_CONF.format(tmp=tmp, app=app_port, proxy=proxy_port))
    log = open(os.path.join(tmp, "app.log"), "w")
    app = start(app_argv(app_port, dsn), dict(os.environ, WORKERS="4"), app_port, log)
    nginx = subprocess.Popen(["nginx", "-c", os.path.join(tmp, "nginx.conf"), "-p", tmp],
                             stdout=log, stderr=log, start_new_session=True)
    pcap = os.path.join(tmp, "proxied.pcap")
    try:
        for _ in range(100):
            try:
                if get(proxy_port, "/stats")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        before = stats(app_port)
        # half the paths under /api/, which nginx strips as it passes them on
        capture(pcap, (PORT, app_port, proxy_port),
                lambda: load(proxy_port, 8, 100, ROUTES + ["/api" + r for r in ROUTES]))
        truth = delta(stats(app_port), before)
    finally:
        stop(nginx)
        stop(app)
        log.close()
    pages = sum(c[0] for c in truth.values())
    check("proxied: the app served every page", pages, 8 * 100)
    both = analyze(pcap, app_port, proxy_port)
    alone = analyze(pcap, app_port)
    front = analyze(pcap, proxy_port)
    # with learning off the first pages are held all the same, for the
    # proxy: none counted twice (before: the first 16-30, until it was known)
    off = analyze(pcap, app_port, proxy_port, more=("--route-values", "0"))
    check("proxied, both ports, --route-values 0: every page of the proxy left out, none"
          " counted twice", [(x["left_out"], x["counted_twice"]) for x in off["http"]["proxies"]],
          [(pages, 0)])
    check("proxied, both ports: the proxy's pages said to be left out", "proxied-pages" in codes(both),
          True)
    px = both["http"]["proxies"]
    check("proxied, both ports: one proxy, in front of the app",
          [(x["endpoint"], x["passes_to"]) for x in px],
          [(f"127.0.0.1:{proxy_port}", f"127.0.0.1:{app_port}")])
    if px:
        check("proxied, both ports: every page of the proxy left out, none counted twice",
              (px[0]["pages"], px[0]["left_out"], px[0]["counted_twice"]), (pages, pages, 0))
    for name, d in (("the app's port alone", alone), ("the proxy's port alone", front)):
        check(f"proxied, {name}: no page taken for a proxy's", "proxied-pages" in codes(d), False)
        check(f"proxied, {name}: no proxy", d["http"]["proxies"], [])
    check("proxied, the proxy's port alone: every page once, under its own routes and /api's",
          sum(x["pages"] for x in routes(front).values()), pages)
    check("proxied, both ports: only the app's routes", sorted(routes(both)), sorted(truth))
    got, app_only = routes(both), routes(alone)
    for route, (n, stmts, opened) in sorted(truth.items()):
        x, y = got.get(route), app_only.get(route)
        check(f"proxied, both ports: {route} every page once", x and x["pages"], n)
        if not x or not y:
            continue
        want = (stmts + opened) / n
        mean = x["round_trips_per_page"]["mean"]
        check(f"proxied, both ports: {route} round trips per page {mean:.3f} within 5% of the"
              f" app's {want:.3f}", within(mean, want), True)
        same = y["round_trips_per_page"]["mean"]
        check(f"proxied, both ports: {route} {mean:.4f} as the app's port alone reads it"
              f" ({same:.4f})", abs(mean - same) <= 0.005 * same, True)


def two_instances(dsn, tmp):
    """Two apps, no proxy: a page of the slow one (each page sleeps in
    SLOW_MS) holds the fast one's, begun and answered apart - every page
    counts."""
    ports = [free_port(), free_port()]
    log = open(os.path.join(tmp, "apps.log"), "w")
    apps = [start(app_argv(p, dsn), dict(os.environ, WORKERS="8", SLOW_MS=slow), p, log)
            for p, slow in zip(ports, ("60", "0"))]
    pcap = os.path.join(tmp, "two.pcap")
    try:
        before = [stats(p) for p in ports]

        def both_loads():
            ts = [threading.Thread(target=load, args=(p, 8, n, ["/articles/3"]))
                  for p, n in zip(ports, (40, 160))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        capture(pcap, (PORT, *ports), both_loads)
        truth = [delta(stats(p), b) for p, b in zip(ports, before)]
    finally:
        for a in apps:
            stop(a)
        log.close()
    pages = sum(c[0] for t in truth for c in t.values())
    check("two instances: the apps served every page", pages, 8 * 40 + 8 * 160)
    d = analyze(pcap, *ports)
    check("two instances: no page taken for a proxy's", "proxied-pages" in codes(d), False)
    check("two instances: no proxy", d["http"]["proxies"], [])
    x = routes(d).get("GET /articles/{id}")
    check("two instances: every page of both counted", x and x["pages"], pages)
    if x:
        n = sum(t["GET /articles/{id}"][0] for t in truth)
        want = sum(t["GET /articles/{id}"][1] + t["GET /articles/{id}"][2] for t in truth) / n
        mean = x["round_trips_per_page"]["mean"]
        check(f"two instances: round trips per page {mean:.3f} within 5% of the apps' {want:.3f}",
              within(mean, want), True)


def main():
    if not PORT:
        skip("no test cluster (PGRTT_PGPORT unset)")
    if not shutil.which("nginx"):
        skip("no nginx")
    dsn = blog_database(PORT, "blogproxy", BLOGLOAD)
    check("the seed's dataset", dsn is not None, True)
    tmp = tempfile.mkdtemp(prefix="pgrtt-proxy-")
    proxied(dsn, tmp)
    two_instances(dsn, tmp)
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
