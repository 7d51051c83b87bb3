#!/usr/bin/python3
"""resource_test.py PGRTT SRCDIR [--full] - memory and time stay bounded on
traffic built to break them (tests/resource/synth.py, piped to pgrtt
analyze -): one request that never completes in front of a million pages,
100k pipelined queries, 10 M tiny messages, a 1 GiB declared message,
20,000 pages of 120 routes at once, 1,100 pages of 300 queries each in
0.7 s, 500 HTTP connections pipelining 9 requests each, 2,000 with header
blocks split over segments, and 1,200 connections each holding a hole that
never fills.

Each case checks the counts the traffic was built with, and ceilings on
peak RSS and on wall time that are ~10x what this machine needs: they catch
a super-linear path or memory that follows the file, not a slow machine.
Speed itself is measured by perf/offline.sh, side by side with tshark."""
import os
import json
import subprocess
import tempfile
import sys
import time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures  # noqa: E402

PGRTT, SRC = sys.argv[1:3]
# tests/resource/peak_rss.c: a plain analysis's few MiB measured as its own,
# not with the copy of this process that fork made before the exec
PEAK_RSS = sys.argv[sys.argv.index("--peak-rss") + 1] if "--peak-rss" in sys.argv else None
SYNTH = os.path.join(SRC, "tests", "resource", "synth.py")


SANITIZED = "--sanitized" in sys.argv  # ASan: shadow memory, ~3x RSS, ~5x time


def run(scenario, n, extra=(), rss_mib=64, seconds=60, pages=True):
    """pgrtt analyze on the generated capture; its own peak RSS (wait4).
    pages=False: a plain analysis, without --http-port."""
    if SANITIZED:
        rss_mib, seconds = rss_mib * 4 + 256, seconds * 6  # + the malloc quarantine
    gen = subprocess.Popen(["/usr/bin/python3", SYNTH, scenario, str(n)], stdout=subprocess.PIPE)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        http = ["--http-port", "8080"] if pages else []
        p = subprocess.Popen([*([PEAK_RSS] if PEAK_RSS else []), PGRTT, "analyze", "-p", "5432", *http, "-F",
                              "json", "--no-progress", *extra, "-"], stdin=gen.stdout,
                             stdout=out, stderr=err)
        gen.stdout.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - t0
        gen.wait()
        out.seek(0)
        err.seek(0)
        doc, text = out.read(), err.read().decode()
    rss = usage.ru_maxrss / 1024
    if PEAK_RSS:
        own = [line for line in text.splitlines() if line.startswith("peak_rss ")]
        text = "".join(line + "\n" for line in text.splitlines() if not line.startswith("peak_rss "))
        rss = int(own[-1].split()[1]) / 1024 if own else float("inf")
    print(f"     {scenario} {n}: {elapsed:.1f} s, peak RSS {rss:.0f} MiB", flush=True)
    check(f"{scenario}: exit status", p.returncode, 0)
    check(f"{scenario}: peak RSS under {rss_mib} MiB", rss < rss_mib, True)
    check(f"{scenario}: under {seconds} s", elapsed < seconds, True)
    return json.loads(doc), text


full = "--full" in sys.argv
# 1,100 N+1 pages of 300 queries each in 0.7 s: the first pages wait while
# routes are learnt (page_hold.h), their round trips with them in the
# attribution; it lets them go at 65,536 round trips - past 262,144 the
# attribution stops waiting for pages, and 877 of these came too late for
# their round trips (counted as long requests, attributed to nothing)
d, _ = run("n-plus-one", 1100, rss_mib=160)
check("n-plus-one: one route, every page, none too late",
      [(x["route"], x["pages"], x["pages_long"]) for x in d["routes"]],
      [("GET /authors/{id}", 1100, 0)])
check("n-plus-one: 300 round trips per page",
      d["routes"][0]["round_trips_per_page"]["mean"], 300)
check("n-plus-one: no finding", [w["code"] for w in d["warnings"]], [])
# 10 M tiny messages in one answer: counted, not stored
d, _ = run("tiny", 10_000_000, rss_mib=32)
check("tiny: rows", d["totals"]["rows"], 10_000_000)
check("tiny: round trips", d["totals"]["round_trips"], 2)
# 100k queries in one flight: one round trip, 100,001 ReadyForQuery
d, _ = run("pipelined", 100_000, rss_mib=32)
check("pipelined: ready_for_query", d["totals"]["ready_for_query"], 100_001)
check("pipelined: round trips", d["totals"]["round_trips"], 2)
# a plain analysis (no pages): what the process needs at start and a
# little per connection, the same for ten times the traffic - no library
# it does not call loaded (src/lazy/), no huge page for the heap
for n in (10_000, 100_000):
    d, _ = run("pipelined", n, rss_mib=8, pages=False)
    check(f"plain, pipelined {n}: ready_for_query", d["totals"]["ready_for_query"], n + 1)
# a message that declares 1 GiB: its bytes are counted, never held
d, _ = run("declared", 256, rss_mib=32)
check("declared: the answer never completed", d["totals"]["unanswered"], 1)
# a million pages behind a request that never completes (before: 600k pages
# were not done after 9 minutes): linear, and memory held to the hold
d, _ = run("open-request", 1_000_000, rss_mib=160, seconds=120)
r = {x["route"]: x for x in d["routes"]}
check("open request: every page counted", r["GET /p"]["pages"], 1_000_000)
check("open request: exact", (r["GET /p"]["attribution"], r["GET /p"]["round_trips_per_page"]["mean"]),
      ("exact", 1))
check("open request: nothing dropped", d["http"]["dropped"], 0)
# the long poll answered at the end: one long page, counted apart
d, _ = run("long-poll", 200_000, rss_mib=160, seconds=60)
r = {x["route"]: x for x in d["routes"]}
check("long poll: its page is counted as long", [w["code"] for w in d["warnings"]
                                                if w["code"] == "long-requests"], ["long-requests"])
check("long poll: the other pages exact", r["GET /p"]["pages_exact"], 200_000)
check("long poll: its route has no figure, not 0",
      (r["GET /events"]["pages"], r["GET /events"]["pages_long"],
       r["GET /events"]["round_trips_per_page"], r["GET /events"]["attribution"]),
      (0, 1, None, "none"))
# 120 routes, 32 pages at once, 240 statements: the fit near its caps
# (features, candidates per round trip) - each route's figure against what
# its pages ran (route k: k % 4 + 1 queries)
d, _ = run("many-routes", 20_000, rss_mib=96, seconds=30)
check("many routes: every route", len(d["routes"]), 120)
check("many routes: every page", sum(x["pages"] for x in d["routes"]), 20_000)
near = held = 0
for x in d["routes"]:
    truth = int(x["route"].split("/")[1][1:]) % 4 + 1
    rt = x["round_trips_per_page"]
    near += abs(rt["mean"] - truth) <= 0.05 * truth
    held += rt["interval95"][0] <= truth <= rt["interval95"][1]
    check(f"many routes: {x['route']} estimated", x["attribution"], "estimated")
check("many routes: >= 90% of the routes within 5%", near >= 108, True)
check("many routes: every interval holds its route's figure", held, 120)
# HTTP pipelining: 9 requests awaiting or being answered on each of 500
# connections, all left open (a connection's request slots grow from 2 as
# it needs them, proto_http.c): every page under the route its request
# named.  An open HTTP connection holds ~7 KiB: 41 when it kept 64 request
# slots and two 16 KiB header buffers (on huge pages faulted in whole,
# though read only for a header block split over segments), 23 with the
# slots grown as needed (500 and 2,000 of them, peak RSS)
d, _ = run("http-pipelined", 500, rss_mib=64, seconds=60)
check("http pipelining: every request answered", (d["http"]["requests"], d["http"]["responses"]),
      (4500, 4500))
check("http pipelining: each page under its own request's route",
      sorted((x["route"], x["pages"]) for x in d["routes"]),
      [("GET /a/{id}", 1500), ("GET /b/{id}", 1000), ("GET /c/{id}", 2000)])
# header blocks split over segments on 2,000 connections left open: each
# connection's framer keeps a buffer for them (allocated as the first such
# block comes, freed with the connection)
d, _ = run("split-headers", 2000, rss_mib=160, seconds=60)
check("split headers: every page, one round trip each",
      [(x["route"], x["pages"], x["round_trips_per_page"]["mean"]) for x in d["routes"]],
      [("GET /r/{id}", 2000, 1.0)])
check("split headers: nothing malformed", d["http"]["malformed"], 0)
# 1,200 connections, each with a hole that never fills: the budget holds
n = 1200 if full else 400
d, err = run("ooo-holes", n, extra=["--max-buffer", "32"], rss_mib=96, seconds=120)
check("holes: every connection counted", d["totals"]["connections"], n)
check("holes: gaps named, with the limit", "--max-buffer limit" in err, True)
sys.exit(1 if failures else 0)
