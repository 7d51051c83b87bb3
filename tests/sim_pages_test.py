#!/usr/bin/python3
"""sim_pages_test.py PGRTT SRC - per-route figures of a single-threaded app
whose pages all overlap, on simulated captures (tests/sim/poolsim.py:
node-postgres' pool, 8 clients, 4 connections, three routes and a lookup
first on every page), held to the simulation's own counts.

A Node app on a busy machine: its event loop runs one step at a time, and
now and then a step takes 20 ms (a long render, or the kernel giving the
CPU to another process) while every page waits.  The time model spread
each page's round trips over its whole window, pauses included, and gave
the index route's statements to the detail route: 3.21 and 2.58 round
trips per index page for 4, 4.80 and 5.03 per detail page (and in CI,
live.driver-pages read 3.70 / 4.30 on the real app).  With the stretches
in which no round trip was in flight left out of pages' lengths
(src/attrib/quiet_time.h): within 1%.  Two cases the time model had right stay
right: threads (no pauses), and stop-the-world pauses at random.

Each route: every page measured, round trips per page within 5% of the
simulation's and an interval that holds it (to 1%).  Needs no server."""
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish  # noqa: E402

PGRTT, SRC = (os.path.abspath(a) for a in sys.argv[1:3])
SIM = os.path.join(SRC, "tests", "sim", "poolsim.py")
CASES = [
    ("one thread, long steps", 7, ["single=1"]),
    ("one thread, long steps", 8, ["single=1"]),
    ("one thread, light steps and long ones", 7, ["single=1", "app=0.1"]),
    ("threads", 7, []),
    ("one thread, stop-the-world pauses", 8, ["single=2", "stall=50"]),
]


def main():
    tmp = tempfile.mkdtemp(prefix="pgrtt-sim-")
    for name, seed, settings in CASES:
        name = f"{name} (seed {seed})"
        pcap = os.path.join(tmp, f"{seed}-{'-'.join(settings) or 'threads'}.pcap")
        sim = subprocess.run(["/usr/bin/python3", SIM, pcap, str(seed)] + settings,
                             capture_output=True, text=True)
        check(f"{name}: simulated", sim.returncode, 0)
        if sim.returncode:
            print(sim.stderr)
            continue
        truth = json.loads(sim.stdout)
        p = subprocess.run([PGRTT, "analyze", "-p", "5432", "--http-port", "8080", "-F", "json",
                            "--no-progress", pcap], capture_output=True, text=True)
        check(f"{name}: analyze exits 0", p.returncode, 0)
        if p.returncode:
            print(p.stderr)
            continue
        got = {r["route"]: r for r in json.loads(p.stdout)["routes"]}
        for route, (pages, stmts, tx) in sorted(truth.items()):
            x = got.get(route)
            check(f"{name}: {route} every page", x and x["pages"], pages)
            if not x:
                continue
            want = (stmts + tx) / pages
            rt = x["round_trips_per_page"]
            lo, hi = rt["interval95"]
            check(f"{name}: {route} {rt['mean']:.3f} round trips per page within 5% of"
                  f" {want:.2f}", abs(rt["mean"] - want) <= 0.05 * want, True)
            check(f"{name}: {route} the interval holds it ({lo:.3f}-{hi:.3f})",
                  lo - 0.01 * want <= want <= hi + 0.01 * want, True)
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
