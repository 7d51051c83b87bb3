#!/usr/bin/python3
"""test_store.py PGRTT SRCDIR CASE - pgrtt's SQLite store, checked through
the real sqlite3 CLI: values equal analyze's JSON, migrations from schema 1,
two concurrent writers, a writer killed mid-run, and bad databases."""
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PGRTT, SRC, CASE = sys.argv[1:4]
CAP = os.path.join(SRC, "captures")
sys.path.insert(0, os.path.join(SRC, "tests"))
from checklib import skip  # noqa: E402
failed = 0


def check(what, got, want):
    global failed
    ok = got == want
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {CASE}: {what}: got {got!r}, want {want!r}")


def sql(db, query):
    out = subprocess.run(["sqlite3", "-batch", "-noheader", db, query], capture_output=True,
                         text=True)
    if out.returncode:
        raise SystemExit(f"FAIL sqlite3: {out.stderr}")
    return [line.split("|") for line in out.stdout.splitlines()]


def pgrtt(*args, **kw):
    return subprocess.run([PGRTT, *args], capture_output=True, text=True, **kw)


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


tmp = tempfile.mkdtemp(prefix="pgrtt-store-")
db = os.path.join(tmp, "bench.db")

if CASE == "roundtrip":
    web = os.path.join(CAP, "web-ping-query.pcap")
    args = ["analyze", "-p", "55432", "--http-port", "18080", "--no-progress"]
    p = pgrtt(*args, "--db", db, "--app", "blog", "--label", "ping=on", "--label", "pool=psycopg2",
              "--store-round-trips", "-F", "json", web)
    check("exit status", p.returncode, 0)
    d = json.loads(p.stdout)
    t = d["totals"]
    run = sql(db, "SELECT id, app, connections, ready_for_query, round_trips, rows, errors, "
                  "http_requests, gaps, malformed FROM runs")
    check("one run", len(run), 1)
    check("run totals", run[0], ["1", "blog", str(t["connections"]), str(t["ready_for_query"]),
                                 str(t["round_trips"]), str(t["rows"]), str(t["errors"]),
                                 str(d["http"]["requests"]), str(t["gaps"]), str(t["malformed"])])
    check("labels", sql(db, "SELECT key, value FROM run_labels ORDER BY key"),
          [["ping", "on"], ["pool", "psycopg2"]])
    classes = dict((k, int(v)) for k, v in sql(db, "SELECT class, round_trips FROM run_classes"))
    for k, v in t["by_class"].items():
        check(f"class {k}", classes[k], v)
    check("acquire pings", classes["ping_acquire"], t["pings"]["acquire"])
    check("round-trip rows", int(sql(db, "SELECT count(*) FROM round_trips")[0][0]),
          t["round_trips"])
    check("ping rows", int(sql(db, "SELECT count(*) FROM round_trips WHERE class='ping'")[0][0]),
          t["by_class"]["ping"])
    routes = {r[1]: r for r in sql(db, "SELECT app, route, pages, round_trips_per_page, "
                                       "ping_acquire_per_page, attribution FROM route_stats")}
    for r in d["routes"]:
        row = routes[r["route"]]
        check(f"route {r['route']}", (row[0], int(row[2]), float(row[3]), float(row[4]), row[5]),
              ("blog", r["pages"], r["round_trips_per_page"]["mean"],
               r["by_class_per_page"]["ping_acquire"], r["attribution"]))
    conns = sql(db, "SELECT conn_id, client, server, ready_for_query, round_trips, ping "
                    "FROM connections ORDER BY conn_id")
    check("connection rows", [[int(c[0]), c[1], c[2], int(c[3]), int(c[4]), int(c[5])]
                              for c in conns],
          [[c["id"], c["client"], c["server"], c["ready_for_query"], c["round_trips"],
            c["by_class"]["ping"]] for c in d["connections"]])
    # a second run of another app; the documented query answers both
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--app", "sqlx",
              os.path.join(CAP, "sqlx-like.pcap"))
    check("second run stored", p.returncode, 0)
    check("stored-run message", "stored run 2" in p.stderr, True)
    check("runs", sql(db, "SELECT id, app, round_trips FROM runs ORDER BY id"),
          [["1", "blog", str(t["round_trips"])], ["2", "sqlx", "31"]])
    check("runs list", pgrtt("runs", "--db", db).stdout.count("\n"), 3)
    check("runs show", "round_trips_per_page=6 " in pgrtt("runs", "--db", db, "show", "1").stdout,
          True)
    check("runs delete", pgrtt("runs", "--db", db, "delete", "1").returncode, 0)
    check("cascade", sql(db, "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM routes),"
                             " (SELECT count(*) FROM round_trips)"), [["1", "0", "0"]])

elif CASE == "migration":
    # a database made by a pgrtt with schema 1: its run must survive the upgrade
    v1 = open(os.path.join(SRC, "tests/store/schema-v1.sql")).read()
    subprocess.run(["sqlite3", db], input=v1 + "\nPRAGMA user_version = 1;\n"
                   "INSERT INTO runs (created_at, app, source, pgrtt_version, ports, packets, "
                   "postgresql_packets, connections, ready_for_query, round_trips, rows, errors,"
                   " unanswered, gaps, gap_bytes, malformed, truncated_segments, mid_stream, tls)"
                   " VALUES ('2026-01-01T00:00:00Z', 'old', 'x.pcap', 'pgrtt 0.0.9', '5432',"
                   " 1,1,1,9,9,0,0,0,0,0,0,0,0,0);", text=True, check=True)
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--store-round-trips",
              os.path.join(CAP, "flush.pcap"))
    check("exit status", p.returncode, 0)
    check("schema version", sql(db, "PRAGMA user_version"), [["8"]])
    check("the host column, the old run without one",
          sql(db, "SELECT id, host IS NULL FROM runs ORDER BY id"), [["1", "1"], ["2", "0"]])
    check("old run kept", sql(db, "SELECT id, app, round_trips FROM runs ORDER BY id"),
          [["1", "old", "9"], ["2", "", "11"]])
    check("new table filled", sql(db, "SELECT count(*) FROM round_trips"), [["11"]])

elif CASE == "concurrent":
    # two writers at once, three runs each: all six stored, database intact
    caps = [os.path.join(CAP, f) for f in ("pgbench-simple.pcap", "web-concurrent.pcap")]
    procs = []
    for k in range(2):
        script = " && ".join(
            f"{PGRTT} analyze -p 55432 --http-port 18080 --no-progress --db {db} --app w{k} "
            f"--store-round-trips {caps[k]} >/dev/null" for _ in range(3))
        procs.append(subprocess.Popen(["sh", "-c", script], stderr=subprocess.PIPE, text=True))
    rcs = [(p.wait(), p.stderr.read()) for p in procs]
    check("both writers succeeded", [r[0] for r in rcs], [0, 0])
    check("runs", sql(db, "SELECT app, count(*) FROM runs GROUP BY app ORDER BY app"),
          [["w0", "3"], ["w1", "3"]])
    check("integrity", sql(db, "PRAGMA integrity_check"), [["ok"]])

elif CASE == "killed":
    # a writer killed mid-run (reading a pipe that stalls) leaves no half run
    pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, os.path.join(CAP, "flush.pcap"))
    feed = subprocess.Popen(["sh", "-c", f"cat {os.path.join(CAP, 'pgbench-simple.pcap')}; exec sleep 30"],
                            stdout=subprocess.PIPE)
    w = subprocess.Popen([PGRTT, "analyze", "-p", "55432", "--no-progress", "--db", db,
                          "--store-round-trips", "-"], stdin=feed.stdout,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    w.send_signal(signal.SIGKILL)
    w.wait()
    feed.kill()
    feed.wait()
    check("integrity", sql(db, "PRAGMA integrity_check"), [["ok"]])
    check("only the finished run", sql(db, "SELECT count(*), (SELECT count(*) FROM round_trips)"
                                           " FROM runs"), [["1", "0"]])
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, os.path.join(CAP, "flush.pcap"))
    check("usable afterwards", (p.returncode, "stored run 2" in p.stderr), (0, True))
    # and again, killed at eight moments of a 100k-round-trip run: while it
    # reads, while it writes rows, while it commits
    big = os.path.join(tmp, "big.pcap")
    with open(big, "wb") as f:
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/resource/synth.py"),
                        "open-request", "100000"], stdout=f, check=True)
    t0 = time.monotonic()
    p = pgrtt("analyze", "-p", "5432", "--http-port", "8080", "--no-progress", "--db", db,
              "--store-round-trips", big)
    whole = time.monotonic() - t0
    check("a whole big run", p.returncode, 0)
    for k in range(8):
        w = subprocess.Popen([PGRTT, "analyze", "-p", "5432", "--http-port", "8080", "--no-progress",
                              "--db", db, "--store-round-trips", big],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(whole * (k + 0.5) / 8)
        w.send_signal(signal.SIGKILL)
        w.wait()
        check(f"kill {k + 1} at {whole * (k + 0.5) / 8:.2f} s: integrity",
              sql(db, "PRAGMA integrity_check"), [["ok"]])
        check(f"kill {k + 1}: whole runs only",
              sql(db, "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM round_trips t"
                      " WHERE t.run_id = r.id) NOT IN (0, r.round_trips)"), [["0"]])

elif CASE == "full":
    # the disk fills while a big run is stored (RLIMIT_FSIZE: SQLite's write
    # fails as on a full disk) and another writer keeps storing small runs:
    # the failed run leaves nothing, and no row of it lands in another run
    # (it once went on in autocommit mode after SQLite's rollback, and the
    # next run reused its id)
    import resource
    big = os.path.join(tmp, "big.pcap")
    with open(big, "wb") as f:
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/resource/synth.py"),
                        "open-request", "200000"], stdout=f, check=True)
    pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, os.path.join(CAP, "flush.pcap"))

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))

    a = subprocess.Popen([PGRTT, "analyze", "-p", "5432", "--http-port", "8080", "--no-progress",
                          "--db", db, "--store-round-trips", big], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    others = 0
    while a.poll() is None:
        pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--store-round-trips",
              os.path.join(CAP, "flush.pcap"))
        others += 1
    err = a.stderr.read()
    check("the full run fails", a.returncode, 2)
    check("with the real cause", ("I/O error" in err or "full" in err, "FOREIGN KEY" in err,
                                  "UNIQUE" in err), (True, False, False))
    check("nothing of it stored", sql(db, "SELECT count(*) FROM runs WHERE round_trips > 1000"), [["0"]])
    check("every run holds only its own round trips",
          sql(db, "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM round_trips t"
                  " WHERE t.run_id = r.id) NOT IN (0, r.round_trips)"), [["0"]])
    check(f"the other writer's runs all stored ({others})",
          sql(db, "SELECT count(*) FROM runs"), [[str(1 + others)]])
    check("integrity", sql(db, "PRAGMA integrity_check"), [["ok"]])

elif CASE == "readonly":
    # readers never need write access: a read-only file, directory or mount
    os.chmod(tmp, 0o755)  # nobody reaches it
    ro_dir = os.path.join(tmp, "ro")
    os.mkdir(ro_dir)
    rodb = os.path.join(ro_dir, "runs.db")
    web = os.path.join(CAP, "web-ping-query.pcap")
    check("stored", pgrtt("analyze", "-p", "55432", "--http-port", "18080", "--no-progress",
                          "--db", rodb, web).returncode, 0)
    os.chmod(rodb, 0o444)
    os.chmod(ro_dir, 0o555)
    before = digest(rodb)
    nobody = ["su", "nobody", "-s", "/bin/sh", "-c"]
    for args in (f"runs --db {rodb}", f"runs --db {rodb} show 1", f"report --db {rodb} -F csv",
                 f"audit --db {rodb} --forbid release-ping"):
        p = subprocess.run(nobody + [f"{PGRTT} {args}"], capture_output=True, text=True)
        check(f"read-only: pgrtt {args.split()[0]}", (p.returncode, p.stderr.strip()), (0, ""))
    check("read-only: left as it was", (digest(rodb), sorted(os.listdir(ro_dir))),
          (before, ["runs.db"]))
    p = subprocess.run(nobody + [f"{PGRTT} analyze -p 55432 --no-progress --db {rodb} {web}"],
                       capture_output=True, text=True)
    check("analyze --db on a read-only file: refused before the work",
          (p.returncode, "read-only" in p.stderr or "cannot write" in p.stderr, p.stdout), (2, True, ""))
    os.chmod(ro_dir, 0o755)
    # the last run only in the -wal, no -shm beside it, a read-only
    # directory: read with it or refused, never the older store alone
    import sqlite3
    walsrc = os.path.join(tmp, "wal.db")
    pgrtt("analyze", "-p", "55432", "--http-port", "18080", "--no-progress", "--db", walsrc,
          os.path.join(CAP, "web-noping.pcap"))
    held = sqlite3.connect(walsrc)  # the writer's close is then not the last: no checkpoint
    held.execute("SELECT count(*) FROM runs").fetchall()
    pgrtt("analyze", "-p", "55432", "--http-port", "18080", "--no-progress", "--db", walsrc, web)
    wal_dir = os.path.join(tmp, "walro")
    os.mkdir(wal_dir)
    for f in ("wal.db", "wal.db-wal"):
        shutil.copy(os.path.join(tmp, f), os.path.join(wal_dir, f))
    held.close()
    check("the copy: a -wal of frames, no -shm",
          (os.path.getsize(os.path.join(wal_dir, "wal.db-wal")) > 4096, sorted(os.listdir(wal_dir))),
          (True, ["wal.db", "wal.db-wal"]))
    os.chmod(wal_dir, 0o555)
    wdb = os.path.join(wal_dir, "wal.db")
    p = subprocess.run(nobody + [f"{PGRTT} audit --db {wdb} --forbid acquire-ping"], capture_output=True,
                       text=True)
    check("a -wal it cannot read: audit refuses (exit 2), never passes on the older run",
          (p.returncode, "its -wal holds runs not yet in the file" in p.stderr), (2, True))
    p = subprocess.run(nobody + [f"{PGRTT} runs --db {wdb}"], capture_output=True, text=True)
    check("... runs refuses too", (p.returncode, p.stdout), (2, ""))
    os.chmod(wal_dir, 0o777)
    p = subprocess.run(nobody + [f"{PGRTT} runs --db {wdb}"], capture_output=True, text=True)
    check("... where the -shm can be made, both runs read", (p.returncode, p.stdout.count("\n")), (0, 3))
    # another program's SQLite file: refused, untouched
    other = os.path.join(tmp, "other.db")
    subprocess.run(["sqlite3", other, "CREATE TABLE notes(x); INSERT INTO notes VALUES (1);"],
                   check=True)
    before = digest(other)
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", other, web)
    check("foreign database: refused", (p.returncode, "not a pgrtt database" in p.stderr, p.stdout),
          (2, True, ""))
    check("foreign database: untouched", (digest(other), sql(other, "SELECT name FROM sqlite_master")),
          (before, [["notes"]]))
    check("foreign database: runs refuses too", pgrtt("runs", "--db", other).returncode, 2)

elif CASE == "bad":
    text = os.path.join(tmp, "notes.txt")
    open(text, "w").write("not a database\n" * 100)
    before = digest(text)
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", text, os.path.join(CAP, "flush.pcap"))
    check("not SQLite: exit", p.returncode, 2)
    check("not SQLite: message", "not a SQLite database" in p.stderr, True)
    check("not SQLite: file untouched", digest(text), before)
    check("not SQLite: no report printed", p.stdout, "")
    subprocess.run(["sqlite3", db, "PRAGMA user_version = 99; CREATE TABLE t(x);"], check=True)
    before = digest(db)
    p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, os.path.join(CAP, "flush.pcap"))
    check("newer schema: exit", p.returncode, 2)
    check("newer schema: message", "newer than this pgrtt" in p.stderr, True)
    check("newer schema: untouched", digest(db), before)
    check("runs on it", pgrtt("runs", "--db", db).returncode, 2)
    empty = os.path.join(tmp, "empty.db")
    pgrtt("analyze", "-p", "55432", "--no-progress", "--db", empty, os.path.join(CAP, "flush.pcap"))
    pgrtt("runs", "--db", empty, "delete", "1")
    p = pgrtt("runs", "--db", empty)
    check("no runs", (p.returncode, "no runs" in p.stdout), (0, True))
    p = pgrtt("runs", "--db", empty, "show", "7")
    check("missing run", (p.returncode, "no run 7" in p.stderr), (2, True))
    missing = os.path.join(tmp, "missing.db")
    p = pgrtt("runs", "--db", missing)
    check("missing database", (p.returncode, os.path.exists(missing)), (2, False))
    p = pgrtt("analyze", "--app", "x", os.path.join(CAP, "flush.pcap"))
    check("--app without --db", p.returncode, 64)
    p = pgrtt("analyze", "--db", db, "--label", "novalue", os.path.join(CAP, "flush.pcap"))
    check("bad label", p.returncode, 64)
elif CASE == "estimated":
    # two routes at once (issue 12): the routes' estimated figures are stored
    # with their interval and inferred share, never as exact; connections per
    # page are not known for estimated pages (NULL); audit from the store judges
    # a budget by the interval: wholly over fails, straddling does not
    web = ["-p", "55432", "--http-port", "18080", "--no-progress"]
    mixed = os.path.join(CAP, "web-mixed.pcap")
    p = pgrtt("analyze", *web, "--db", db, "-F", "json", mixed)
    check("exit status", p.returncode, 0)
    j = {r["route"]: r for r in json.loads(p.stdout)["routes"]}
    rows = sql(db, "SELECT route, pages, attribution, round(round_trips_per_page, 4),"
               " round(inferred_share, 4), round(round_trips_low, 4), round(round_trips_high, 4),"
               " connections_per_page IS NULL FROM routes ORDER BY route")
    rows = [[r[0], int(r[1]), r[2], *map(float, r[3:7]), r[7]] for r in rows]
    want = [[r, j[r]["pages"], j[r]["attribution"],
             round(j[r]["round_trips_per_page"]["mean"], 4), round(j[r]["inferred_share"], 4),
             round(j[r]["round_trips_per_page"]["interval95"][0], 4),
             round(j[r]["round_trips_per_page"]["interval95"][1], 4), "1"] for r in sorted(j)]
    check("routes as analyze's JSON", rows, want)
    check("estimated, never exact", sorted({r[2] for r in rows}), ["estimated"])
    p = pgrtt("report", "--db", db, "-F", "md")
    check("report says estimated, with the interval",
          len(re.findall(r"\| estimated \(\d+% inferred; 95% [\d.]+-[\d.]+\) \|", p.stdout)), 2)
    p = pgrtt("report", "--db", db, "-F", "json")
    rep = {r["route"]: r for r in json.loads(p.stdout)["rows"]}
    check("report JSON: the interval as stored",
          [round(x, 4) for x in rep["GET /articles/{id}"]["interval95"]],
          [round(x, 4) for x in j["GET /articles/{id}"]["round_trips_per_page"]["interval95"]])
    p = pgrtt("audit", "--db", db, "--route", "GET /articles/{id}=3")
    check("a budget under the whole interval fails",
          (p.returncode, "wholly over budget 3" in p.stdout), (1, True))
    p = pgrtt("audit", "--db", db, "--route", "GET /articles/{id}=5")
    check("a budget over it passes", (p.returncode, "within budget 5" in p.stdout), (0, True))
    # an interval that holds the budget (as a wide estimate would): not failed, and said
    sql(db, "UPDATE routes SET round_trips_per_page = 4.2, round_trips_low = 3.5,"
        " round_trips_high = 4.9 WHERE route = 'GET /articles/{id}'")
    p = pgrtt("audit", "--db", db, "--route", "GET /articles/{id}=4")
    check("an interval straddling the budget does not fail it",
          (p.returncode, "straddles budget 4" in p.stdout, "cannot tell" in p.stdout),
          (0, True, True))
    p = pgrtt("audit", "--db", db, "--max-connections-per-page", "1")
    check("connections per page of estimated pages: not measured, failed",
          (p.returncode, "connections per page not measured" in p.stdout), (1, True))

elif CASE == "not-measured":
    # the wrong -p beside --http-port: the pages are real, their round trips
    # were not measured.  Stored as NULL with attribution "not measured"
    # (never 0.0 "estimated"), left out of report's routes with why, compared
    # as unmeasured, and a route budget is not passed on a 0.00 - only said,
    # where the finding was allowed by name
    mixed = os.path.join(CAP, "web-mixed.pcap")
    wrong = ["-p", "5432", "--http-port", "18080", "--no-progress"]
    right = ["-p", "55432", "--http-port", "18080", "--no-progress"]
    p = pgrtt("analyze", *wrong, "--db", db, "-F", "json", mixed)
    j = json.loads(p.stdout)
    check("analyze JSON: routes not measured, nulls, latency kept",
          sorted({(r["attribution"], r["round_trips_per_page"], r["by_class_per_page"],
                   r["http_latency_ms"] is not None) for r in j["routes"]}),
          [("not measured", None, None, True)])
    check("analyze: no mixed-routes note beside no-postgresql",
          [w["code"] for w in j["warnings"]], ["no-postgresql"])
    rows = sql(db, "SELECT route, pages, attribution, round_trips_per_page IS NULL,"
               " query_per_page IS NULL, inferred_share IS NULL, round_trips_low IS NULL,"
               " http_p50_ms IS NULL FROM routes ORDER BY route")
    check("stored: NULL, not 0.0, and not measured",
          [r[2:] for r in rows], [["not measured", "1", "1", "1", "1", "0"]] * 2)
    check("stored: the pages stand", sum(int(r[1]) for r in rows), 240)
    wrong_run = int(sql(db, "SELECT max(id) FROM runs")[0][0])
    pgrtt("analyze", *right, "--db", db, mixed)
    right_run = wrong_run + 1
    # a run stored before such routes were NULL: 0.0 "estimated" under a fatal finding
    old = sql(db, "SELECT count(*) FROM routes WHERE run_id = %d" % right_run)[0][0]
    pgrtt("analyze", *wrong, "--db", db, mixed)
    old_run = right_run + 1
    sql(db, "UPDATE routes SET attribution = 'estimated', round_trips_per_page = 0.0,"
        " query_per_page = 0.0, inferred_share = 0.0, round_trips_low = 0.0,"
        " round_trips_high = 0.0 WHERE run_id = %d" % old_run)
    p = pgrtt("report", "--db", db, "-F", "md")
    md = p.stdout
    table = [l for l in md.splitlines() if l.startswith("| GET ")]
    check("md: only the measured run's routes, no 0.00 row",
          (len(table), any("**0.00**" in l for l in table), all("#%d" % right_run in l for l in table)),
          (int(old), False, True))
    check("md: the other runs left out, and why",
          "runs %d and %d: round trips per page not measured (no-postgresql)" % (wrong_run, old_run)
          in md, True)
    p = pgrtt("report", "--db", db, "-F", "json")
    left = {e["run"]: e["reason"] for e in json.loads(p.stdout)["left_out"]}
    check("json: left_out with the reason", sorted(left), [wrong_run, old_run])
    check("json: no row of the unmeasured runs",
          sorted({r["run"] for r in json.loads(p.stdout)["rows"]}), [right_run])
    p = pgrtt("report", "--db", db, "-F", "csv")
    check("csv: no row of the unmeasured runs",
          sorted({l.split(",")[0] for l in p.stdout.splitlines()[1:]}), [str(right_run)])
    p = pgrtt("report", "--db", db, "--compare", str(wrong_run), str(right_run))
    cmp = [l for l in p.stdout.splitlines() if l.startswith("| GET ")]
    check("compare: unmeasured, no +nan or change from 0",
          (len(cmp), all(l.endswith("| unmeasured |") for l in cmp), any("nan" in l for l in cmp)),
          (2, True, False))
    for run in (wrong_run, old_run):
        p = pgrtt("audit", "--db", db, "--run", str(run), "--max-rt-per-page", "4")
        check(f"audit run {run}: not measured, exit 2", p.returncode, 2)
        p = pgrtt("audit", "--db", db, "--run", str(run), "--max-rt-per-page", "4",
                  "--allow", "no-postgresql")
        lines = [l for l in p.stdout.splitlines() if l.endswith("no-postgresql allowed)")]
        check(f"audit run {run}, allowed: each route said not measured, no 0.00",
              (p.returncode, len(lines), "0.00" in p.stdout), (0, 2, False))
    # baselines: an unmeasured run is never one, and is not compared as 0.00
    sql(db, "UPDATE runs SET app = 'blog'")
    p = pgrtt("audit", "--db", db, "--run", str(right_run), "--baseline-from", "app=blog",
              "--allow", "mixed-routes,lockstep-routes,unplaced-statements")
    check("baseline-from skips the runs that measured nothing",
          (p.returncode, "no stored run with measured pages matches" in p.stderr), (2, True))
    p = pgrtt("audit", "--db", db, "--run", str(old_run), "--baseline-from", "app=blog",
              "--allow", "no-postgresql")
    lines = [l for l in p.stdout.splitlines() if "baseline" in l and l.startswith("ok ")]
    check("an unmeasured run against a baseline: said, not +0.00 / -N",
          (p.returncode, len(lines), all("not measured" in l and "of run %d" % right_run in l
                                         for l in lines)), (0, 2, True))

elif CASE == "report":
    # three pool set-ups of the blog app: the report shows 3, 6 and 4 round
    # trips per detail page, as the app was built to make
    for pool in ("noping", "ping-query", "ping-page"):
        p = pgrtt("analyze", "-p", "55432", "--http-port", "18080", "--no-progress", "--db", db,
                  "--app", "blog", "--label", f"pool={pool}",
                  os.path.join(CAP, f"web-{pool}.pcap"))
        check(f"stored {pool}", p.returncode, 0)
    rows = [l.split(",") for l in pgrtt("report", "--db", db, "-F", "csv").stdout.splitlines()]
    head = rows[0]
    got = {(r[head.index("labels")].strip('"'), r[head.index("route")].strip('"')):
           float(r[head.index("round_trips_per_page")]) for r in rows[1:]}
    want = {("pool=noping", "GET /articles/{id}"): 3.0, ("pool=ping-query", "GET /articles/{id}"): 6.0,
            ("pool=ping-page", "GET /articles/{id}"): 4.0, ("pool=noping", "GET /"): 1.0,
            ("pool=ping-query", "GET /"): 2.0, ("pool=ping-page", "GET /"): 2.0}
    check("csv round trips per page", got, want)
    db_rows = sql(db, "SELECT route, round_trips_per_page FROM route_stats ORDER BY run_id, route")
    rep = json.loads(pgrtt("report", "--db", db, "-F", "json").stdout)["rows"]
    check("json equals the database", sorted((r["route"], r["round_trips_per_page"]) for r in rep),
          sorted((r[0], float(r[1])) for r in db_rows))
    md = pgrtt("report", "--db", db, "--label", "pool=ping-query").stdout
    tables = [l for l in md.splitlines() if l.startswith("|")]
    check("md filtered by label: one run, its two routes (with their headers)",
          (len(tables), "**6.00**" in md, "pool=noping" in md), (3 + 4, True, False))
    cmp = pgrtt("report", "--db", db, "--compare", "1", "2").stdout
    check("compare: +3 round trips per detail page, all pings",
          "| GET /articles/{id} | 3.00 | 6.00 | **+3.00** | +0.00 | +3.00 | +0.00 |" in cmp, True)
    check("compare a missing run", pgrtt("report", "--db", db, "--compare", "1", "9").returncode, 2)
    check("report --run of a run not stored: exit 2",
          pgrtt("report", "--db", db, "--run", "9").returncode, 2)
    check("bad format", pgrtt("report", "--db", db, "-F", "pdf").returncode, 64)
    check("--table is csv's", pgrtt("report", "--db", db, "--table", "runs").returncode, 64)
    html = os.path.join(tmp, "report.html")
    check("html written", pgrtt("report", "--db", db, "-F", "html", "-o", html).returncode, 0)
    page = open(html).read()
    check("self-contained (no fetches)", any(k in page for k in ("http://", "https://", "src=")), False)
    # the runs' chart: noping 1 query + 1 startup segment; the two ping
    # set-ups 3 segments each; per route: noping a query bar, the two ping
    # set-ups a query and an acquire-ping bar each
    bars = (2 + 3 + 3) + 2 * (1 + 2 + 2)
    check("bars in the file", page.count('<rect class="bar'), bars)
    check("a chart per route and one of the runs, each titled",
          (page.count("<svg"), page.count("<text class=\"title\""), page.count("<text class=\"axis\"")),
          (3, 3, 3))
    check("the axis says its unit", ("round trips per page (PostgreSQL)" in page,
                                     "round trips per query" in page), (True, True))

elif CASE == "report-runs":
    # Runs without pages (the first user): every run in every
    # format, its figures equal to what analyze said of the capture
    caps = {"sqlx": "sqlx-like", "sqla": "sqlalchemy-preping", "hikari": "hikaricp"}
    want = {}
    for app, cap in caps.items():
        p = pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--app", app, "-F", "json",
                  os.path.join(CAP, cap + ".pcap"))
        check(f"stored {app}", p.returncode, 0)
        want[app] = json.loads(p.stdout)["totals"]
    # a run that measured nothing (the wrong port): in the report, not as 0s
    p = pgrtt("analyze", "--no-progress", "--db", db, "--app", "wrong-port",
              os.path.join(CAP, "hikaricp.pcap"))
    j = json.loads(pgrtt("report", "--db", db, "-F", "json").stdout)
    runs = {r["app"]: r for r in j["runs"]}
    check("json: every run", sorted(runs), ["hikari", "sqla", "sqlx", "wrong-port"])
    check("json: no routes, none invented", j["rows"], [])
    for app, t in want.items():
        r, bc = runs[app], t["by_class"]
        check(f"{app}: totals as analyze counted them",
              (r["round_trips"], r["ready_for_query"], r["connections"]),
              (t["round_trips"], t["ready_for_query"], t["connections"]))
        check(f"{app}: classes as analyze counted them",
              (r["by_class"]["query"], r["by_class"]["ping_acquire"], r["by_class"]["ping_release"],
               r["by_class"]["transaction"], r["by_class"]["reset"], r["by_class"]["startup"]),
              (bc["query"], t["pings"]["acquire"], t["pings"]["release"], bc["transaction"],
               bc["reset"], bc["startup"]))
        check(f"{app}: the classes add up to the round trips",
              sum(v for k, v in r["by_class"].items() if k != "startup"), t["round_trips"])
        check(f"{app}: round trips per query", round(r["round_trips_per_query"], 6),
              round(t["round_trips"] / bc["query"], 6))
        lat = json.loads(pgrtt("analyze", "-p", "55432", "-F", "json",
                               os.path.join(CAP, caps[app] + ".pcap")).stdout)["totals"]["latency_us"]
        check(f"{app}: latency from the run",
              (round(r["latency_p50_ms"], 6), round(r["latency_p99_ms"], 6)),
              (round(lat["p50"] / 1e3, 6), round(lat["p99"] / 1e3, 6)))
    check("patterns named from the wire",
          (runs["sqlx"]["pattern"], runs["sqla"]["pattern"], runs["hikari"]["pattern"]),
          ("sqlx: lone Sync on acquire and release (sqlx's pool)",
           "SELECT 1 on acquire, transaction control", "pgjdbc: empty query on acquire"))
    w = runs["wrong-port"]
    check("the run that measured nothing: null counts and rates, not 0s, and its finding",
          (w["measured"], w["round_trips"], w["connections"], w["by_class"],
           w["round_trips_per_query"], w["latency_p50_ms"], w["pattern"],
           [x["code"] if isinstance(x, dict) else x for x in w["warnings"]]),
          (False, None, None, None, None, None, None, ["no-postgresql"]))
    check("the runs that did: measured", [runs[a]["measured"] for a in caps], [True] * 3)
    wid = w["run"]
    lst = pgrtt("runs", "--db", db).stdout.splitlines()
    row = [l for l in lst if l.split()[0] == str(wid)]
    check("runs: the run that measured nothing lists '-' counts and why",
          (len(row), row and row[0].split()[4:7], row and "(not measured: no-postgresql)" in row[0]),
          (1, ["-", "-", "-"], True))
    cmp = pgrtt("report", "--db", db, "--compare", str(wid), str(runs["sqlx"]["run"])).stdout
    check("compare against it: no round trips, no change (not +N from 0)",
          [l for l in cmp.splitlines() if l.startswith("| round trips |")],
          [f"| round trips | - | {want['sqlx']['round_trips']} | - |"])
    p = pgrtt("report", "--db", db)
    check("md: no 'no routes match' dead end", ("no routes match" in p.stderr, p.returncode), (False, 0))
    check("md: the runs table, a row per run",
          len([l for l in p.stdout.splitlines() if re.match(r"\| \d+ \|", l)]), 4)
    check("md: says why there is no page table",
          "No pages: these runs were stored without --http-port." in p.stdout, True)
    check("md: sqlx's 3.10 round trips per query", "| **3.10** |" in p.stdout, True)
    check("md: the run that measured nothing says so, no 0 in its row",
          [l.split(" | ")[3:5] for l in p.stdout.splitlines() if l.startswith(f"| {wid} | ")][:1],
          [["not measured", "-"]])
    rows = list(__import__("csv").reader(io.StringIO(
        pgrtt("report", "--db", db, "-F", "csv", "--table", "runs").stdout)))
    check("csv --table runs: a row per run, the header's fields",
          (len(rows) - 1, sorted({len(r) for r in rows})), (4, [len(rows[0])]))
    h = rows[0]
    check("csv: the run that measured nothing: empty counts, measured 0",
          [(r[h.index("round_trips")], r[h.index("connections")], r[h.index("measured")])
           for r in rows[1:] if r[h.index("app")] == "wrong-port"], [("", "", "0")])
    check("csv: pings per 100 queries of sqlx",
          [r[h.index("pings_per_100_queries")] for r in rows[1:] if r[h.index("app")] == "sqlx"],
          ["200"])
    p = pgrtt("report", "--db", db, "-F", "csv")
    check("csv routes of runs without pages: the header, and a note to --table runs",
          (p.stdout.count("\n"), "--table runs" in p.stderr), (1, True))
    html = os.path.join(tmp, "runs.html")
    pgrtt("report", "--db", db, "-F", "html", "-o", html)
    page = open(html).read()
    check("html: the runs' chart (sqlx 4 segments, sqla 4, hikari 3), no route chart",
          (page.count("<svg"), page.count('<rect class="bar')), (1, 4 + 4 + 3))
    check("html: acquire and release pings and transaction control each their own colour",
          all(f'class="bar seg-{k}"' in page for k in ("ping_acquire", "ping_release", "transaction")),
          True)
    check("html: the patterns under the bars",
          ("sqlx: lone Sync on acquire and release" in page, "pgjdbc: empty query on acquire" in page),
          (True, True))
    check("html: the run that measured nothing says so, in the chart and its row",
          ("not measured (see its warnings)" in page, "<td>not measured</td>" in page), (True, True))
    # runs: a long app name and labels widen their columns, the rest stay in line
    pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--app", "an-application-name-of-40-characters-xx",
          "--label", "branch=feature/a-rather-long-branch-name", os.path.join(CAP, "sqlx-like.pcap"))
    lines = pgrtt("runs", "--db", db).stdout.splitlines()
    head = lines[0]
    at = [head.index(k) + len(k) for k in ("conns", "rfq", " rt")]
    check("runs: numbers right-aligned under their headers, past long labels",
          {tuple(l[a - 1] != " " and (len(l) <= a or l[a] == " ") for a in at) for l in lines[1:]},
          {(True, True, True)})
    pgrtt("runs", "--db", db, "delete", "5")
    # a run with pages beside them: the others are named, with the reason
    pgrtt("analyze", "-p", "55432", "--http-port", "18080", "--no-progress", "--db", db, "--app",
          "blog", os.path.join(CAP, "web-ping-query.pcap"))
    p = pgrtt("report", "--db", db)
    check("left out, named with the reason (report and stderr)",
          ("runs 1, 2, 3 and 4: stored without --http-port" in p.stdout,
           "runs 1, 2, 3 and 4: stored without --http-port" in p.stderr), (True, True))
    j = json.loads(pgrtt("report", "--db", db, "-F", "json").stdout)
    check("json left_out", [(x["run"], x["reason"]) for x in j["left_out"]],
          [(k, "stored without --http-port") for k in (1, 2, 3, 4)])

elif CASE == "report-compare":
    # --compare in every format; routes in one run only kept (added, removed)
    args = ["analyze", "-p", "55432", "--http-port", "18080", "--no-progress", "--db", db,
            "--app", "blog"]
    pgrtt(*args, os.path.join(CAP, "web-noping.pcap"))
    pgrtt(*args, os.path.join(CAP, "web-ping-query.pcap"))
    # run 3: the detail pages under a route renamed: one route in both runs,
    # one removed, one added
    pgrtt(*args, "--route", "GET /articles/*", os.path.join(CAP, "web-ping-page.pcap"))
    pgrtt("analyze", "-p", "55432", "--no-progress", "--db", db, "--app", "sqlx",
          os.path.join(CAP, "sqlx-like.pcap"))
    routes = lambda run: {r["route"] for r in json.loads(pgrtt(
        "report", "--db", db, "-F", "json", "--run", run).stdout)["rows"]}
    r1, r3 = routes("1"), routes("3")
    j = json.loads(pgrtt("report", "--db", db, "-F", "json", "--compare", "1", "3").stdout)["compare"]
    got = {x["route"]: x["status"] for x in j["routes"]}
    check("json compare: every route of either run",
          sorted(got), sorted(r1 | r3))
    check("json compare: status",
          got, {k: "both" if k in r1 and k in r3 else "added" if k in r3 else "removed"
                for k in r1 | r3})
    check("json compare: some routes in one run only (the test means something)",
          sorted(set(got.values())) != ["both"], True)
    for x in j["routes"]:
        if x["status"] == "both":
            check(f"json compare {x['route']}: change = b - a",
                  round(x["change"]["round_trips_per_page"], 9),
                  round(x["b"]["round_trips_per_page"] - x["a"]["round_trips_per_page"], 9))
        else:
            check(f"json compare {x['route']}: the missing side null",
                  (x["a"] is None) == (x["status"] == "added") and x["change"] is None, True)
    check("json compare: runs' round trips per query, change",
          round(j["runs"]["round_trips_per_query"]["change"], 9),
          round(j["b"]["round_trips_per_query"] - j["a"]["round_trips_per_query"], 9))
    md = pgrtt("report", "--db", db, "--compare", "1", "3").stdout
    check("md compare: added and removed routes shown",
          [s for s in ("added", "removed") if s in set(got.values())] ==
          [s for s in ("added", "removed") if f"| {s} |" in md], True)
    c = list(__import__("csv").reader(io.StringIO(
        pgrtt("report", "--db", db, "-F", "csv", "--compare", "1", "3").stdout)))
    check("csv compare: a row per route of either run, with status",
          sorted((r[0], r[-1]) for r in c[1:]), sorted(got.items()))
    c = list(__import__("csv").reader(io.StringIO(
        pgrtt("report", "--db", db, "-F", "csv", "--compare", "1", "3", "--table", "runs").stdout)))
    check("csv compare --table runs: metrics", c[1][0], "round_trips_per_query")
    html = os.path.join(tmp, "cmp.html")
    check("html compare written",
          pgrtt("report", "--db", db, "-F", "html", "--compare", "1", "3", "-o", html).returncode, 0)
    page = open(html).read()
    check("html compare: a chart per route and the runs'", page.count("<svg"), 1 + len(got))
    check("html compare: status column", all(f">{s}<" in page for s in set(got.values()) - {"both"}),
          True)
    # against a run without pages: its side is not measured, not removed
    j = json.loads(pgrtt("report", "--db", db, "-F", "json", "--compare", "1", "4").stdout)["compare"]
    check("compare with a run stored without --http-port: unmeasured",
          sorted({x["status"] for x in j["routes"]}), ["unmeasured"])
    check("its runs' comparison still there",
          (j["runs"]["round_trips_per_query"]["b"], j["runs"]["pings_per_100_queries"]["b"]),
          (3.1, 200.0))

elif CASE in ("report-golden", "report-chromium"):
    # reports/make.sh again: the Markdown and HTML equal the committed ones
    # (but for the version line), and Chromium's rendering in both schemes
    # is the committed screenshots' to a tolerance (fonts hint differently)
    out = os.path.join(tmp, "reports")
    env = dict(os.environ, OUT=out, SHOTS="1" if CASE == "report-chromium" else "")
    if CASE == "report-chromium" and not shutil.which("chromium"):
        skip("chromium not installed")
    p = subprocess.run(["sh", os.path.join(os.path.abspath(SRC), "reports", "make.sh"),
                        os.path.abspath(PGRTT)], env=env,
                       capture_output=True, text=True)
    check("make.sh", (p.returncode, p.stderr), (0, ""))
    strip = lambda t: re.sub(r"pgrtt \d[^<\n]*", "pgrtt VERSION", t)
    if CASE == "report-golden":
        for f in ("round-trips.md", "round-trips.html", "compare.md", "compare.html"):
            check(f"{f} as committed", strip(open(os.path.join(out, f)).read()),
                  strip(open(os.path.join(SRC, "reports", f)).read()))
    else:
        from PIL import Image
        prof = os.path.join(tmp, "profile")
        base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-quic", f"--user-data-dir={prof}"]
        html = os.path.join(out, "round-trips.html")
        dom = subprocess.run(base + ["--dump-dom", "file://" + html], capture_output=True,
                             text=True, timeout=120).stdout
        # the DOM as Chromium built it: every chart and bar of the file
        page = open(html).read()
        check("rendered: every chart", dom.count("<svg"), page.count("<svg"))
        check("rendered: every bar", dom.count('class="bar '), page.count('class="bar '))
        for scheme, bg in (("light", (255, 255, 255)), ("dark", (0x14, 0x18, 0x1c))):
            got = Image.open(os.path.join(out, f"round-trips-{scheme}.png")).convert("RGB")
            ref = Image.open(os.path.join(SRC, "reports", f"round-trips-{scheme}.png")).convert("RGB")
            check(f"{scheme}: the page's background", got.getpixel((3, 3)), bg)
            check(f"{scheme}: size", got.size, ref.size)
            if got.size == ref.size:
                a, b = got.tobytes(), ref.tobytes()
                differ = sum(1 for i in range(0, len(a), 3)
                             if max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]),
                                    abs(a[i + 2] - b[i + 2])) > 64)
                share = differ / (got.size[0] * got.size[1])
                check(f"{scheme}: pixels as the committed screenshot's (differing {share:.4f})",
                      share < 0.01, True)
            # something drawn: the bars' colours are in the picture
            colours = set(got.getdata())
            want = {"light": [(0x2f, 0x6f, 0xb3), (0xd9, 0x82, 0x2b), (0xb8, 0x45, 0x2f)],
                    "dark": [(0x6e, 0xa8, 0xe8), (0xf0, 0xa4, 0x5c), (0xe8, 0x76, 0x5e)]}[scheme]
            check(f"{scheme}: queries, acquire and release pings drawn in their colours",
                  [c in colours for c in want], [True] * 3)

else:
    print(f"unknown case {CASE}")
    failed = 1

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
