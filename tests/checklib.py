"""checklib.py - what every Python test shares: check(), a line per check
as it runs, and the failed ones again when the test ends, because a long
log is read by its head and tail (CI shows those and elides the middle);
skip() for a test without what it needs; finish() for its exit."""
import atexit
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(what, got, want):
    ok = got == want
    if not ok:
        failures.append(f"{what}: got {got!r}, want {want!r}")
    print(f"{'ok  ' if ok else 'FAIL'} {what}: got {got!r}, want {want!r}", flush=True)
    return ok


def same_on_one_thread(argv, out):
    """Attribution runs on a thread of its own when a large file is read
    (on one for a small one): argv's JSON output (out) must be the same on
    one (PGRTT_THREADS=1) and on two (PGRTT_THREADS=2)."""
    ok = True
    for n in ("1", "2"):
        p = subprocess.run(argv, capture_output=True, text=True,
                           env=dict(os.environ, PGRTT_THREADS=n))
        a, b = json.loads(out), json.loads(p.stdout)
        a.pop("pgrtt", None)
        b.pop("pgrtt", None)
        ok &= check(f"{os.path.basename(argv[-1])}: the same on {n} thread(s)", a == b, True)
    return ok


def required():
    """PGRTT_REQUIRE_LIVE=1 (CI, tests/run.sh): what a live test needs must
    be there, and its absence is a failure, not a skip."""
    return os.environ.get("PGRTT_REQUIRE_LIVE") == "1"


def skip(why):
    """A test without what it needs (the test cluster, a server, a tool):
    skipped, exit 77 (ctest's SKIP_RETURN_CODE), or failed, exit 1, where
    required() says it must be there."""
    print(f"{why}: skipped", flush=True)
    sys.exit(1 if required() else 77)


def finish(tmp):
    """The test's exit status: its scratch directory tmp kept for a look
    when a check failed or PGRTT_KEEP is set (and said so), removed
    otherwise."""
    if failures or os.environ.get("PGRTT_KEEP"):
        print(f"captures kept in {tmp}")
        return 1 if failures else 0
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _summary():
    if failures:
        print(f"\n{len(failures)} check(s) failed:", file=sys.stdout)
        for line in failures:
            print(f"FAIL {line}", file=sys.stdout)
        sys.stdout.flush()


atexit.register(_summary)
