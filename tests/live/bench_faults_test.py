#!/usr/bin/python3
"""bench_faults_test.py PGRTT SRCDIR - pgrtt bench against apps that fight
back (issue 44, tests/live/bench_faulty_app.py): one that trickles a byte every 4 s
(SIGTERM and SIGINT act within a second or two), one that sends chunked pages
and ignores Connection: close (compared as bodies, at once), one that starts a
process in a session of its own (killed with the app), and bench itself killed
with -9 mid-run (its servers, apps and directories found and removed by
`pgrtt bench --clean`, and by the next bench)."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, failures, skip  # noqa: E402

PGRTT, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
BUILD = os.environ.get("PGRTT_BENCH_BUILD", os.path.join(os.path.dirname(PGRTT), "bench-build"))
CONFIG = """{"apps": [
  {"name": "ref", "stack": "the reference", "dir": "%(src)s/bench/apps/c-libpq",
   "build": "cc -O2 -o \\"$BUILD/app\\" \\"$APP/app.c\\" $(pkg-config --cflags --libs libpq) -pthread",
   "run": ["$BUILD/app"], "env": {"POOL_MODE": "pgx"}},
  {"name": "faulty", "stack": "%(mode)s",
   "run": ["/usr/bin/python3", "%(src)s/tests/live/bench_faulty_app.py", "%(mode)s"],
   "env": {"DAEMON_PID": "%(pidfile)s"}}]}"""


def leftovers():
    """What a bench may leave: its directories, a server under them,
    redis-server, the apps and the daemon of tests/live/bench_faulty_app.py."""
    dirs = set(glob.glob("/tmp/pgrtt-bench-*"))
    procs = subprocess.run(["pgrep", "-f", "pgrtt-bench-|bench_faulty_app|sleep 600"],
                           capture_output=True, text=True).stdout.split()
    redis = subprocess.run(["pgrep", "-x", "redis-server"], capture_output=True, text=True).stdout.split()
    return dirs, sorted(procs + redis)


def settled(before, timeout=5):
    """leftovers() once it equals before (a stopped server's processes take
    a moment to go), or as it is after timeout; what remains is named."""
    end = time.monotonic() + timeout
    while True:
        now = leftovers()
        if now == before or time.monotonic() > end:
            for pid in set(now[1]) - set(before[1]):
                print("left:", pid, open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ")[:200]
                      if os.path.exists(f"/proc/{pid}") else "(gone)")
            return now
        time.sleep(0.2)


def bench(out, mode, **kw):
    cfg = os.path.join(out, f"{mode}.json")
    with open(cfg, "w") as f:
        f.write(CONFIG % {"src": SRC, "mode": mode, "pidfile": os.path.join(out, "daemon.pid")})
    return subprocess.Popen([PGRTT, "bench", "--quick", "--no-progress", "--config", cfg, "--build-dir",
                             BUILD, "--out", os.path.join(out, mode)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def wait_for(p, text, timeout=120):
    """Reads p's table (standard output) until a line holds text."""
    seen, end = [], time.monotonic() + timeout
    while time.monotonic() < end:
        line = p.stdout.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            break
    return "".join(seen)


def main():
    if os.geteuid() != 0 or not shutil.which("wrk") or not shutil.which("redis-server"):
        skip("needs root, wrk and redis-server")
    before = leftovers()
    out = tempfile.mkdtemp(prefix="pgrtt-benchfaults-")
    try:
        # a page that trickles forever: SIGTERM, then SIGINT, each acted on at once
        for sig in (signal.SIGTERM, signal.SIGINT):
            p = bench(out, "trickle")
            wait_for(p, "compute")  # the reference's last route: the faulty app starts
            time.sleep(3)
            t0 = time.monotonic()
            p.send_signal(sig)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            took = time.monotonic() - t0
            p.communicate()
            check(f"a trickling app, {signal.Signals(sig).name}: bench ends in {took:.1f} s (< 3)",
                  (p.returncode != 0, took < 3), (True, True))
            check(f"... nothing left behind ({signal.Signals(sig).name})", settled(before), before)
        # ... and left alone: its first page's 10 s, not 10 s a page
        p = bench(out, "trickle")
        wait_for(p, "compute")
        t0 = time.monotonic()
        err = p.communicate(timeout=120)[1]
        took = time.monotonic() - t0
        check(f"a trickling app alone: the check fails after one page's 10 s ({took:.0f} s), exit 1",
              (p.returncode, took < 20, "faulty: /: no whole HTTP response in 10 s" in err), (1, True, True))
        # chunked pages, the connection kept open: bodies compared, at once
        t0 = time.monotonic()
        p = bench(out, "daemon")
        err = p.communicate(timeout=300)[1]
        took = time.monotonic() - t0
        check(f"chunked pages kept alive: the HTML check fails at once, exit 1 ({took:.0f} s)",
              (p.returncode, took < 120), (1, True))
        check("... the first differing line is the body's, not chunk framing",
              'faulty: / differs from the reference: "<html><head><title>Chunked & not the blog'
              '</title>"' in err, True)
        pid = int(open(os.path.join(out, "daemon.pid")).read())
        check("a process the app started with setsid: killed with the app",
              (os.path.exists(f"/proc/{pid}"), bool(re.search(r"faulty: \d+ process(es)? it started "
                                                              r"outlived it: killed", err))), (False, True))
        check("... nothing left behind", settled(before), before)
        # bench killed with -9 mid-run: everything it started stays...
        p = bench(out, "daemon")
        wait_for(p, "rt/page")  # the table's head: the servers and the reference run
        time.sleep(1)
        p.send_signal(signal.SIGKILL)
        p.wait()
        time.sleep(0.5)
        left = leftovers()
        check("kill -9: its servers and directories are left", (len(left[0] - before[0]) >= 1,
                                                                len(left[1]) > len(before[1])),
              (True, True))
        c = subprocess.run([PGRTT, "bench", "--clean"], capture_output=True, text=True, timeout=60)
        check("... pgrtt bench --clean stops and removes them, and says so",
              (c.returncode, "1 stale bench cleaned" in c.stderr, "left" in c.stderr), (0, True, True))
        time.sleep(0.5)
        check("... nothing left behind", settled(before), before)
        c = subprocess.run([PGRTT, "bench", "--clean"], capture_output=True, text=True, timeout=60)
        check("... and a second --clean finds nothing", c.stderr.strip(), "pgrtt: bench: 0 stale benches cleaned")
        # the next bench does the same by itself
        p = bench(out, "daemon")
        wait_for(p, "rt/page")
        p.send_signal(signal.SIGKILL)
        p.wait()
        p = bench(out, "chunked")
        err = p.communicate(timeout=300)[1]
        check("the next bench cleans a killed one's leftovers first",
              "a bench that ended without cleaning up" in err, True)
        time.sleep(0.5)
        check("... nothing left behind", settled(before), before)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
