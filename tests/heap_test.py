#!/usr/bin/python3
"""heap_test.py PGRTT SRCDIR [--sanitized] - the heap on huge pages (src/base/heap.c).

The figures do not depend on it: analyze's JSON is the same to the byte with
PGRTT_HUGE_PAGES=0 and without, on the committed two-route capture on two
threads, and on 5,000 pages of 120 routes at once (tests/resource/synth.py) -
and on one thread, where the fit's EM steps, large enough there to go to
both threads in parts, run their parts in turn.
Where the kernel offers transparent huge pages (and the build has glibc's
allocator, not a sanitizer's), the synthetic capture's analysis takes fewer
than half the page faults it takes with PGRTT_HUGE_PAGES=0 (3,900 -> 1,200
here): the heap is really on 2 MiB pages, not merely asked to be.  Where
the kernel does not offer them, that check says so and is skipped."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures  # noqa: E402

PGRTT, SRC = sys.argv[1], sys.argv[2]
SANITIZED = "--sanitized" in sys.argv
SYNTH = os.path.join(SRC, "tests", "resource", "synth.py")


def analyze(args, huge, threads="2"):
    env = dict(os.environ, PGRTT_THREADS=threads)
    env.pop("PGRTT_HUGE_PAGES", None)
    if not huge:
        env["PGRTT_HUGE_PAGES"] = "0"
    p = subprocess.Popen([PGRTT, "analyze", "--no-progress", "-F", "json", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    check(f"exit status ({args[-1]}, huge pages {huge})", os.waitstatus_to_exitcode(status), 0)
    return re.sub(rb'"pgrtt":\s*"[^"]*"', b"", out), usage.ru_minflt


def offered():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            line = f.read()
    except OSError:
        return False
    return "[always]" in line or "[madvise]" in line


mixed = ["-p", "55432", "--http-port", "18080", os.path.join(SRC, "captures", "web-mixed.pcap")]
a, _ = analyze(mixed, True)
b, _ = analyze(mixed, False)
check("web-mixed: the same JSON with and without huge pages", a == b, True)
check("web-mixed: routes in it", b'"routes"' in a, True)

with tempfile.NamedTemporaryFile(suffix=".pcap") as cap:
    subprocess.run(["/usr/bin/python3", SYNTH, "many-routes", "5000"], stdout=cap, check=True)
    cap.flush()
    synth = ["-p", "5432", "--http-port", "8080", cap.name]
    a, huge_faults = analyze(synth, True)
    b, small_faults = analyze(synth, False)
    check("many-routes: the same JSON with and without huge pages", a == b, True)
    # one thread: the fit's EM steps in parts, in turn, not on two threads
    # (infer.c em_parts_parallel: a step of this many pairs goes to both)
    c, _ = analyze(synth, True, threads="1")
    check("many-routes: the same JSON on one thread and on two", a == c, True)
    print(f"     page faults: {huge_faults} on huge pages, {small_faults} without")
    if SANITIZED:
        print("     skipped: a sanitizer's allocator (heap.c leaves it alone)")
    elif not offered():
        print("     skipped: the kernel offers no transparent huge pages here")
    else:
        check("many-routes: under half the faults on huge pages",
              huge_faults * 2 < small_faults, True)

if failures:
    print("\n".join(["FAILED:"] + failures))
    sys.exit(1)
