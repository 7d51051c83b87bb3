#!/usr/bin/python3
"""nomem_test.py PGRTT FAILMALLOC_SO SRCDIR - out of memory, everywhere:
each allocation of 4 KiB or more that pgrtt (and its libraries) make on a
committed capture is made to fail in turn (tests/resource/failmalloc.c,
preloaded), and each run must end in one of three ways:

- the output of the run that lacked nothing (the allocation had a way
  round it, or its loss changed nothing shown);
- a result with a warning-level finding it did not have before
  (out-of-memory, attribution-dropped, partial-input: audit fails on it),
  exit 0 or 3;
- exit 2 with a one-line error on standard error and no output.

Never a crash, never another result without a word.  With --db, the run is
stored whole or not at all: the store's runs before and after.  Not for a
sanitized build (its allocator is its own)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures  # noqa: E402

PGRTT, PRELOAD, SRC = sys.argv[1:4]
CAPS = os.path.join(SRC, "captures")
WARNING = ("warning", "error", "fatal")


def run(argv, nth=None, count=False, env=None):
    e = dict(os.environ, LD_PRELOAD=PRELOAD, **(env or {}))
    if count:
        e["FAILMALLOC_COUNT"] = "1"
    if nth:
        e["FAILMALLOC_NTH"] = str(nth)
    p = subprocess.run([PGRTT, *argv], env=e, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def strip(doc):
    return "\n".join(line for line in doc.splitlines() if '"pgrtt":' not in line)


def sweep(name, argv, env=None):
    """Fail each large allocation of `pgrtt argv` in turn (JSON output)."""
    rc, base, err = run(argv, count=True, env=env)
    n = int(err.strip().splitlines()[-1].split()[-1])
    check(f"{name}: the run without a failure exits 0", rc, 0)
    before = {w["code"] for w in json.loads(base)["warnings"]}
    bad = []
    outcomes = {"same": 0, "warned": 0, "error": 0}
    for k in range(1, n + 1):
        rc, out, err = run(argv, nth=k, env=env)
        lines = [x for x in err.strip().splitlines() if x]
        if rc == 2 and not out:
            if not lines or "out of memory" not in lines[-1]:
                bad.append(f"#{k}: exit 2 without 'out of memory' ({lines[-1:]})")
            outcomes["error"] += 1
            continue
        if rc not in (0, 3):
            bad.append(f"#{k}: exit {rc}: {lines[-1:]}")
            continue
        if strip(out) == strip(base):
            outcomes["same"] += 1
            continue
        new = [(w["code"], w["severity"]) for w in json.loads(out)["warnings"]
               if w["code"] not in before]
        if not any(s in WARNING for _, s in new):
            bad.append(f"#{k}: another result, no new warning ({new})")
        outcomes["warned"] += 1
    print(f"     {name}: {n} allocations failed in turn: {outcomes}", flush=True)
    check(f"{name}: a large allocation to fail (the preload works)", n > 5, True)
    check(f"{name}: every failure crashes nothing and says so", bad, [])
    return outcomes


mixed = ["analyze", "--no-progress", "-p", "55432", "--http-port", "18080", "-F", "json"]
o = sweep("web-mixed", [*mixed, os.path.join(CAPS, "web-mixed.pcap")])
# the fit's own paths: the interval without the jackknife, the estimate
check("web-mixed: some failures are survived with a warning", o["warned"] > 0, True)
sweep("web-mixed, two threads", [*mixed, os.path.join(CAPS, "web-mixed.pcap")],
      env={"PGRTT_THREADS": "2"})
sweep("web-learnt", [*mixed, os.path.join(CAPS, "web-learnt.pcap")])
sweep("redis-py", ["analyze", "--no-progress", "-p", "55432", "--redis-port", "56379",
                   "--http-port", "18080", "-F", "json", os.path.join(CAPS, "redis-py.pcap")])
sweep("pgbench-extended", ["analyze", "--no-progress", "-p", "55432", "-F", "json",
                           os.path.join(CAPS, "pgbench-extended.pcapng")])

# the store: a run is there whole, or not at all
tmp = tempfile.mkdtemp(prefix="pgrtt-nomem-")
try:
    seed = os.path.join(tmp, "seed.db")
    store = [*mixed[:-2], "--db"]
    cap = os.path.join(CAPS, "web-mixed.pcap")
    subprocess.run([PGRTT, *store, seed, cap], check=True, capture_output=True)
    db = os.path.join(tmp, "t.db")
    shutil.copy(seed, db)
    _, _, err = run([*store, db, cap], count=True)
    n = int(err.strip().splitlines()[-1].split()[-1])
    bad, stored = [], 0
    for k in range(1, n + 1):
        shutil.copy(seed, db)
        rc, _, err = run([*store, db, cap], nth=k)
        p = subprocess.run([PGRTT, "report", "--db", db, "-F", "json"],
                           capture_output=True, text=True)
        try:
            doc = json.loads(p.stdout)
            runs, rows = doc["runs"], doc["rows"]
        except (ValueError, KeyError):
            bad.append(f"#{k}: the store no longer reads ({p.stderr.strip()[-120:]})")
            continue
        if rc != 0:
            if len(runs) != 1:
                bad.append(f"#{k}: exit {rc}, yet {len(runs)} runs stored")
            elif "out of memory" not in err:
                bad.append(f"#{k}: exit {rc} without 'out of memory'")
            continue
        if len(runs) != 2:
            bad.append(f"#{k}: exit 0, {len(runs)} runs stored")
            continue
        # the second run whole: as the first, run and rows, or warned
        def plain(x):
            return {key: v for key, v in x.items() if key not in ("run", "created_at")}
        same = plain(runs[1]) == plain(runs[0]) and \
            [plain(r) for r in rows if r["run"] == 2] == [plain(r) for r in rows if r["run"] == 1]
        codes = set(runs[1]["warnings"]) - set(runs[0]["warnings"])  # the stored codes
        if same:
            stored += 1
        elif not codes & {"out-of-memory", "attribution-dropped", "partial-input"}:
            bad.append(f"#{k}: a run unlike the first, no warning ({sorted(codes)})")
    print(f"     --db: {n} allocations failed in turn, {stored} runs stored whole", flush=True)
    check("--db: every run stored whole or not at all", bad, [])
finally:
    shutil.rmtree(tmp)
sys.exit(1 if failures else 0)
