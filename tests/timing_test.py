#!/usr/bin/python3
"""timing_test.py PGRTT SRCDIR - PGRTT_TIMING=1 says where analyze's time went.

On the committed two-route capture with --http-port, on one thread and on
two: one line on stderr naming the phases in the order they run (the
reading, placing, the fit's steps, the report, the frees), each a number of
milliseconds that add up to the total it ends with, which lies within the
wall time the test measures around the process; the report on stdout is
the same as without it.  Without PGRTT_TIMING (or with 0) there is no such
line."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures  # noqa: E402

PGRTT, SRC = sys.argv[1], sys.argv[2]
CAP = os.path.join(SRC, "captures", "web-mixed.pcap")
ARGV = [PGRTT, "analyze", "--no-progress", "-F", "json", "-p", "55432", "--http-port", "18080", CAP]
PHASES = ["read", "place", "fit.setup", "fit.pack", "fit.estimate", "fit.tests", "fit.refit",
          "fit.interval", "fit.bounds", "fit.correct", "report", "free"]


def run(**env):
    e = {k: v for k, v in os.environ.items() if k != "PGRTT_TIMING"}
    e.update(env)
    t0 = time.monotonic()
    p = subprocess.run(ARGV, capture_output=True, text=True, env=e)
    p.wall_ms = (time.monotonic() - t0) * 1e3
    check(f"exit status ({env})", p.returncode, 0)
    return p


def strip(out):
    return re.sub(r'"pgrtt":\s*"[^"]*"', "", out)


plain = run()
check("no timing line by default", "timing:" in plain.stderr, False)
check("none with PGRTT_TIMING=0", "timing:" in run(PGRTT_TIMING="0").stderr, False)
for threads in ("1", "2"):
    p = run(PGRTT_TIMING="1", PGRTT_THREADS=threads)
    lines = [x for x in p.stderr.splitlines() if x.startswith("pgrtt: analyze: timing: ")]
    check(f"{threads} thread(s): one timing line", len(lines), 1)
    if not lines:
        continue
    m = re.fullmatch(r"pgrtt: analyze: timing: (.*) \(([0-9.]+) ms in all\)", lines[0])
    check(f"{threads} thread(s): its form", m is not None, True)
    if not m:
        continue
    parts = [x.strip().rsplit(" ", 1) for x in m.group(1).split(",")]
    check(f"{threads} thread(s): the phases, in order", [x[0] for x in parts], PHASES)
    ms = [float(x[1]) for x in parts]
    check(f"{threads} thread(s): each a time", all(v >= 0 for v in ms), True)
    check(f"{threads} thread(s): they add up to the total",
          abs(sum(ms) - float(m.group(2))) < 0.01 + 1e-6 * len(ms), True)
    # against a clock outside pgrtt: the phases are within the process's life
    check(f"{threads} thread(s): the total ({m.group(2)} ms) within the run's wall time"
          f" ({p.wall_ms:.1f} ms), the reading more than nothing",
          0 < ms[0] and 0 < float(m.group(2)) < p.wall_ms, True)
    check(f"{threads} thread(s): the report unchanged", strip(p.stdout) == strip(plain.stdout), True)
if failures:
    print("\n".join(["FAILED:"] + failures))
    sys.exit(1)
