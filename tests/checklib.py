"""checklib.py - the live tests' check(): a line per check as it runs, and
the failed ones again when the test ends, because a long log is read by its
head and tail (CI shows those and elides the middle)."""
import atexit
import sys

failures = []


def check(what, got, want):
    ok = got == want
    if not ok:
        failures.append(f"{what}: got {got!r}, want {want!r}")
    print(f"{'ok  ' if ok else 'FAIL'} {what}: got {got!r}, want {want!r}", flush=True)
    return ok


def _summary():
    if failures:
        print(f"\n{len(failures)} check(s) failed:", file=sys.stdout)
        for line in failures:
            print(f"FAIL {line}", file=sys.stdout)
        sys.stdout.flush()


atexit.register(_summary)
