#!/usr/bin/python3
"""test_store.py PGRTT SRCDIR CASE - pgrtt's SQLite store, checked through
the real sqlite3 CLI: values equal analyze's JSON, migrations from schema 1,
two concurrent writers, a writer killed mid-run, and bad databases."""
import hashlib
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
    check("runs show", "round_trips_per_page=6.0" in pgrtt("runs", "--db", db, "show", "1").stdout,
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
    check("schema version", sql(db, "PRAGMA user_version"), [["6"]])
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

elif CASE in ("report", "report-chromium"):
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
    check("md filtered by label", (md.count("\n"), "**6.00**" in md), (4, True))
    cmp = pgrtt("report", "--db", db, "--compare", "1", "2").stdout
    check("compare: +3 round trips per detail page, all pings",
          "| GET /articles/{id} | 3.00 | 6.00 | **+3.00** | +0.00 | +3.00 | +0.00 |" in cmp, True)
    check("compare a missing run", pgrtt("report", "--db", db, "--compare", "1", "9").returncode, 2)
    check("bad format", pgrtt("report", "--db", db, "-F", "pdf").returncode, 64)
    html = os.path.join(tmp, "report.html")
    check("html written", pgrtt("report", "--db", db, "-F", "html", "-o", html).returncode, 0)
    page = open(html).read()
    check("self-contained (no fetches)", any(k in page for k in ("http://", "https://", "src=")), False)
    # per route: noping a query bar, the two ping set-ups a query and a ping
    # bar each; and three legend swatches per chart
    bars = 2 * (1 + 2 + 2) + 2 * 3
    check("bars in the file", page.count('<rect class="bar'), bars)
    if CASE == "report-chromium":
        chromium = shutil.which("chromium")
        if not chromium:
            print("chromium not installed")
            sys.exit(1 if os.environ.get("PGRTT_REQUIRE_LIVE") == "1" else 77)
        prof = os.path.join(tmp, "profile")
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-quic", f"--user-data-dir={prof}"]
        dom = subprocess.run(base + ["--dump-dom", "file://" + html], capture_output=True,
                             text=True, timeout=120).stdout
        # the DOM as Chromium built it: both charts, every bar, the numbers
        check("rendered: two charts", dom.count("<svg"), 2)
        check("rendered: bars", dom.count('class="bar '), bars)
        for v in ("3.00", "6.00", "4.00"):
            check(f"rendered: value {v}", f'class="value"' in dom and f">{v}<" in dom, True)
        # the screenshot must hold more than an empty page of the same size does
        sizes = []
        blank = os.path.join(tmp, "blank.html")
        open(blank, "w").write("<html><body></body></html>")
        for page_path in (html, blank):
            png = page_path + ".png"
            subprocess.run(base + [f"--screenshot={png}", "--window-size=1200,900",
                                   "file://" + page_path], capture_output=True, timeout=120)
            sizes.append(os.path.getsize(png) if os.path.exists(png) else 0)
        check(f"screenshot drawn (report {sizes[0]} bytes, blank {sizes[1]})",
              sizes[1] > 0 and sizes[0] > 1.5 * sizes[1], True)
else:
    print(f"unknown case {CASE}")
    failed = 1

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
