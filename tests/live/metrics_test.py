#!/usr/bin/python3
"""metrics_test.py PGRTT SRCDIR - pgrtt capture --metrics, scraped while it
runs: the blog test app (a checkout and an empty-query ping per query) on
the test cluster (PGRTT_PGPORT) under a sequential load of its routes and
of 60 unknown paths (a route each: the cap), parsed with prometheus_client's
own text-format parser (Debian's python3-prometheus-client).  Counters only
grow between scrapes; the last scrape, once the load is over, equals the
run the capture stores when it ends; label values from the command line
and the network stay valid; the endpoint answers /metrics only, survives
a silent client and refuses oversized requests.  A capture on a port
nothing listens on says so (pgrtt_finding), not 0 round trips alone."""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

PGRTT, SRC = sys.argv[1:3]
PORT = os.environ.get("PGRTT_PGPORT")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, failures, skip  # noqa: E402
from livelib import free_port, wait_listening  # noqa: E402




def scrape(url):
    from prometheus_client.parser import text_string_to_metric_families
    with urllib.request.urlopen(url, timeout=10) as r:
        ctype = r.headers.get("Content-Type")
        body = r.read().decode("utf-8")
    out = {}
    for fam in text_string_to_metric_families(body):
        for s in fam.samples:
            out[(s.name, tuple(sorted((k, v) for k, v in s.labels.items() if k != "app")))] = s.value
    return out, ctype, body


def scrape_until(url, pages, timeout=8):
    """Scrapes until pgrtt_pages_total reaches pages (attribution settles
    about a second after a page's response) or the time is up."""
    end = time.time() + timeout
    while True:
        got = scrape(url)
        if total(got[0], "pgrtt_pages_total") >= pages or time.time() > end:
            return got
        time.sleep(0.25)


def total(m, name, **want):
    return sum(v for (n, labels), v in m.items() if n == name
               and all(dict(labels).get(k) == w for k, w in want.items()))


if not PORT:
    skip("no test cluster (PGRTT_PGPORT unset)")

tmp = tempfile.mkdtemp(prefix="pgrtt-metrics-")
http, mport = free_port(), free_port()
dsn = f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres sslmode=disable"
app = subprocess.Popen(["/usr/bin/python3", os.path.join(SRC, "tests/clients/webapp.py"), dsn,
                        str(http), "ping-query"], stdout=subprocess.PIPE, text=True)
cap = None
try:
    assert app.stdout.readline().strip() == "ready"
    db, out = os.path.join(tmp, "m.db"), os.path.join(tmp, "cap.json")
    # a quote, a backslash, a newline, a byte that is not UTF-8, one character that is
    name = 'shop "eu"\\\n\udce9\u00e9'
    cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", "-p", PORT, "--http-port", str(http),
                            "--metrics", f"127.0.0.1:{mport}", "--app", name, "--db", db,
                            "--no-progress", "-F", "json", "-o", out],
                           stderr=subprocess.PIPE, text=True)
    wait_listening(mport)
    url = f"http://127.0.0.1:{mport}/metrics"
    load = ["/usr/bin/python3", os.path.join(SRC, "tests/clients/load.py"), str(http), "1"]
    subprocess.run(load + ["20", "/articles/1", "/"], check=True, capture_output=True)
    first, ctype, body = scrape_until(url, 20)
    check("content type of the text format", ctype, "text/plain; version=0.0.4; charset=utf-8")
    check("the app label escaped as the format says, the bad byte as the text \\xe9",
          '{app="shop \\"eu\\"\\\\\\n\\\\xe9\u00e9"' in body, True)
    check("pages so far", total(first, "pgrtt_pages_total"), 20)
    # a silent client holds a slot, not the endpoint; 24 idle connections and
    # a dozen that send half a request head hold no scrape up (a slowloris)
    silent = socket.create_connection(("127.0.0.1", mport))
    idle = [socket.create_connection(("127.0.0.1", mport)) for _ in range(36)]
    for s in idle[:12]:
        s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: a")
    t0 = time.monotonic()
    for _ in range(4):
        scrape(url)
    took = time.monotonic() - t0
    check(f"4 scrapes beside 36 idle or trickling connections in under a second ({took:.3f} s)",
          took < 1, True)
    nul = socket.create_connection(("127.0.0.1", mport))
    t0 = time.monotonic()
    nul.sendall(b"GET /metrics HTTP/1.1\r\nHost: a\x00b\r\n\r\n")
    nul.settimeout(10)
    answer = nul.recv(12)
    nul.close()
    check("a request head with a NUL byte answered at once, not held",
          (answer[:9], time.monotonic() - t0 < 1), (b"HTTP/1.1 ", True))
    for s in idle:
        s.close()
    # 60 unknown paths, a route each (the app looks each up with one query)
    for k in range(60):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{http}/unknown{k}", timeout=10).read()
        except urllib.error.HTTPError as e:  # the app's 404: a page all the same
            e.read()
    subprocess.run(load + ["20", "/articles/2", "/"], check=True, capture_output=True)
    time.sleep(1.2)  # pings waiting for a role get it after a second
    last, _, last_body = scrape_until(url, 100)
    silent.close()
    grown = [k for k, v in first.items() if k[0].endswith("_total") and last.get(k, 0) < v]
    check("counters only grow between scrapes", grown, [])
    check("no finding once the app ran", [k for k in last if k[0] == "pgrtt_finding"], [])
    routes = {dict(l).get("route") for (n, l) in last if n == "pgrtt_pages_total"}
    check("route label values capped at 50, the rest as other",
          (len(routes), "other" in routes, "GET /articles/{id}" in routes), (50, True, True))
    # other endpoints and bad requests
    for path, method, want in (("/", "GET", 404), ("/metrics", "POST", 405)):
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{mport}{path}",
                                                          method=method, data=b"" if method == "POST" else None), timeout=10)
            code = 200
        except urllib.error.HTTPError as e:
            code = e.code
        check(f"{method} {path}", code, want)
    s = socket.create_connection(("127.0.0.1", mport))
    s.sendall(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 8000)
    reply = s.recv(100)
    s.close()
    check("an oversized request refused", reply.split(b"\r\n")[0], b"HTTP/1.1 431 Request Header Fields Too Large")
    cap.send_signal(signal.SIGINT)
    cap.wait(timeout=60)
    check("capture ends by SIGINT, exit 0", cap.returncode, 0)
    # the last scrape against the run stored at the end
    q = sqlite3.connect(db)
    cls = dict(q.execute("SELECT class, round_trips FROM run_classes"))
    for c in ("query", "ping", "startup", "transaction"):
        check(f"round trips of class {c} = the stored run's",
              total(last, "pgrtt_round_trips_total", **{"class": c}), cls.get(c, 0))
    for r in ("acquire", "release", "idle"):
        check(f"{r} pings = the stored run's", total(last, "pgrtt_pings_total", role=r),
              cls.get("ping_" + r, 0))
    rfq, = q.execute("SELECT ready_for_query FROM runs").fetchone()
    app_stored, = q.execute("SELECT app FROM runs").fetchone()
    from prometheus_client.parser import text_string_to_metric_families
    apps = {s.labels.get("app") for f in text_string_to_metric_families(last_body) for s in f.samples}
    check("the app label reads back as the stored app", apps, {app_stored})
    route_names = {r for r, in q.execute("SELECT route FROM routes")}
    check("every route label but 'other' is a stored route's name",
          sorted({dict(l)["route"] for (n, l) in last if "route" in dict(l)} - route_names - {"other"}), [])
    check("ReadyForQuery = the stored run's", total(last, "pgrtt_ready_for_query_total"), rfq)
    check("the latency histogram counts every timed round trip",
          total(last, "pgrtt_round_trip_duration_seconds_count") ==
          total(last, "pgrtt_round_trip_duration_seconds_bucket", le="+Inf") > 0, True)
    stored = {r: (p, rt) for r, p, rt in q.execute(
        "SELECT route, pages, round_trips_per_page FROM routes")}
    check("pages = the stored run's", total(last, "pgrtt_pages_total"),
          sum(p for p, _ in stored.values()))
    for route in ("GET /articles/{id}", "GET /"):
        pages = total(last, "pgrtt_pages_total", route=route)
        rts = total(last, "pgrtt_route_round_trips_total", route=route)
        check(f"{route}: pages and round trips per page = the stored run's",
              (pages, round(rts / pages, 6) if pages else None),
              (stored[route][0], round(stored[route][1], 6)))
    check(f"GET /articles/{{id}}: 6 round trips per page (3 queries, 3 pings)",
          total(last, "pgrtt_route_round_trips_per_page", route="GET /articles/{id}"), 6)
    check("GET /articles/{id}: 3 acquire pings per page",
          total(last, "pgrtt_route_pings_total", route="GET /articles/{id}", role="acquire") /
          total(last, "pgrtt_pages_total", route="GET /articles/{id}"), 3)
    d = json.load(open(out))
    check("the report agrees too", d["totals"]["ready_for_query"], rfq)
    # a port nothing listens on: a finding, not an app without round trips
    wrong, mport2 = free_port(), free_port()
    cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", "-p", str(wrong), "--http-port", str(http),
                            "--metrics", f"127.0.0.1:{mport2}", "--no-progress", "-o", os.devnull],
                           stderr=subprocess.PIPE, text=True)
    wait_listening(mport2)
    subprocess.run(load + ["5", "/articles/1"], check=True, capture_output=True)
    m, _, _ = scrape(f"http://127.0.0.1:{mport2}/metrics")
    findings = {dict(l)["code"]: dict(l)["severity"] for (n, l), v in m.items()
                if n == "pgrtt_finding" and v == 1}
    check("wrong port: the finding says nothing was measured", findings, {"no-postgresql": "fatal"})
    check("wrong port: and round trips read 0 beside it", total(m, "pgrtt_round_trips_total"), 0)
    cap.send_signal(signal.SIGINT)
    cap.wait(timeout=60)
    check("wrong port: the capture warns at its end too", "[no-postgresql]" in cap.stderr.read(), True)
finally:
    if cap and cap.poll() is None:
        cap.kill()
        cap.wait()
    app.terminate()
    app.wait()
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
