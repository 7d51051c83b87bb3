#!/usr/bin/python3
"""test_pgstore.py PGRTT SRCDIR - the central store: --db postgresql://...

A throwaway PostgreSQL cluster of its own (tests/pg_cluster.sh, a free
port, a temporary directory) is the store.  Four writers at once on a new
database (they migrate it together); the reports, run listings and audits
of those runs equal the SQLite store's for the same captures; a store of an
older schema (tests/store/schema-pg-v1.sql) is upgraded by a writer and
refused, with the way out, by a reader; a role that may only read gets a
clear error when writing and its reports when reading; the password comes
from libpq's sources, and is never printed nor stored; PGRTT_DB stands for
--db; each run says which host stored it."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

PGRTT, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path[:0] = [os.path.join(SRC, "tests"), os.path.join(SRC, "tests", "live")]
from checklib import check, failures, required, skip  # noqa: E402
from livelib import free_port  # noqa: E402

CAP = os.path.join(SRC, "captures")
if not shutil.which("pg_ctlcluster") and not os.path.isdir("/usr/lib/postgresql"):
    skip("no PostgreSQL server binaries")

tmp = tempfile.mkdtemp(prefix="pgrtt-pgstore-")
os.chmod(tmp, 0o755)  # the cluster runs as postgres
port = free_port()
cluster = os.path.join(tmp, "pg")
ENV = dict(os.environ, PGCONNECT_TIMEOUT="10")
ENV.pop("PGRTT_DB", None)
ENV.pop("PGPASSWORD", None)


def run(*args, env=None, **kw):
    return subprocess.run([PGRTT, *args], capture_output=True, text=True, env=env or ENV, **kw)


def psql(sql, db="postgres", user="postgres"):
    p = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-d", db, "-qAtX",
                        "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True, env=ENV)
    if p.returncode:
        raise SystemExit(f"FAIL psql {sql!r}: {p.stderr}")
    return p.stdout.strip()


def uri(db, user="postgres"):
    return f"postgresql://{user}@127.0.0.1:{port}/{db}?sslmode=disable"


WEB = ["-p", "55432", "--http-port", "18080", "--no-progress"]
CAPS = [("blog-noping", WEB, "web-noping.pcap"), ("blog-ping-query", WEB, "web-ping-query.pcap"),
        ("blog-mixed", WEB, "web-mixed.pcap"), ("sqlx", ["-p", "55432", "--no-progress"],
                                                 "sqlx-like.pcap")]


def comparable(report):
    """A report's runs and rows by app, without what differs between two
    stores by nature: run ids, when they were stored."""
    d = json.loads(report)
    runs = {r["app"]: {k: v for k, v in r.items() if k not in ("run", "created_at")}
            for r in d["runs"]}
    rows = {(r["app"], r["route"]): {k: v for k, v in r.items() if k != "run"} for r in d["rows"]}
    return runs, rows


try:
    p = subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "start", cluster,
                        str(port)], capture_output=True, text=True)
    check("the store's cluster started", p.returncode, 0)
    psql("CREATE DATABASE central")
    # four writers at once on a database without pgrtt's tables
    procs = [subprocess.Popen([PGRTT, "analyze", *a, "--db", uri("central"), "--app", app,
                               "--label", "host=ci-" + app, os.path.join(CAP, c)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
             for app, a, c in CAPS]
    errs = [(pr.wait(timeout=120), pr.stderr.read()) for pr in procs]
    check("four writers at once: all stored", [rc for rc, _ in errs], [0] * 4)
    check("... each said so", sum("stored run" in e for _, e in errs), 4)
    check("four runs, one schema version row, the current version",
          (psql("SELECT count(*) FROM runs", "central"), psql("SELECT count(*), max(version) FROM "
                                                               "pgrtt_schema", "central")),
          ("4", "1|8"))
    # the same captures into SQLite: the reports are the same
    lite = os.path.join(tmp, "same.db")
    for app, a, c in CAPS:
        run("analyze", *a, "--db", lite, "--app", app, "--label", "host=ci-" + app,
            os.path.join(CAP, c))
    for fmt in ("json",):
        pg_rep, lite_rep = run("report", "--db", uri("central"), "-F", fmt), run(
            "report", "--db", lite, "-F", fmt)
        check("report: exit status", (pg_rep.returncode, lite_rep.returncode), (0, 0))
        a, b = comparable(pg_rep.stdout), comparable(lite_rep.stdout)
        check("report: the same runs as the SQLite store's", a[0], b[0])
        check("report: the same routes as the SQLite store's", a[1], b[1])
        check("report: something to compare", (len(a[0]), len(a[1]) >= 4), (4, True))
    ids = dict(line.split("|") for line in psql("SELECT app, id FROM runs", "central").splitlines())
    lite_ids = {app: str(i + 1) for i, (app, _, _) in enumerate(CAPS)}
    for app in ("blog-ping-query", "blog-mixed"):
        x = run("audit", "--db", uri("central"), "--run", ids[app], "--max-rt-per-page", "4",
                "--forbid", "acquire-ping")
        y = run("audit", "--db", lite, "--run", lite_ids[app], "--max-rt-per-page", "4",
                "--forbid", "acquire-ping")
        judged = lambda t: t.splitlines()[0].split(" (")[1].split("; stored")[0]  # not id, time
        check(f"audit {app}: the same verdict and checks as on SQLite",
              (x.returncode, x.stdout.split("\n", 1)[1], judged(x.stdout)),
              (y.returncode, y.stdout.split("\n", 1)[1], judged(y.stdout)))
        check(f"audit {app}: names the run it judged",
              x.stdout.startswith(f"audited run {ids[app]} (app {app};"), True)
    x = run("runs", "--db", uri("central"), "show", ids["sqlx"])
    y = run("runs", "--db", lite, "show", lite_ids["sqlx"])
    strip = lambda t: [l for l in t.splitlines() if not l.startswith(("id ", "created_at ", "run_key "))]
    check("runs show: the same totals, classes, labels", strip(x.stdout), strip(y.stdout))
    c = run("report", "--db", uri("central"), "--compare", ids["blog-noping"], ids["blog-ping-query"])
    check("--compare on the central store: +3 round trips per detail page",
          "| GET /articles/{id} | 3.00 | 6.00 | **+3.00** |" in c.stdout, True)
    check("each run says which host stored it",
          {r["host"] for r in json.loads(pg_rep.stdout)["runs"]}, {socket.gethostname()})
    # PGRTT_DB stands for --db
    p = run("runs", env=dict(ENV, PGRTT_DB=uri("central")))
    check("PGRTT_DB: runs lists the central store's", (p.returncode, p.stdout.count("\n")), (0, 5))
    p = run("audit", "--run", ids["blog-noping"], "--max-rt-per-page", "9",
            env=dict(ENV, PGRTT_DB=uri("central")))
    check("PGRTT_DB: audit reads a run of the central store", (p.returncode, "3.00 <= 9" in p.stdout),
          (0, True))
    # the docs' central-store flow, two runners: runner 1's gate judges its
    # own app's newest run, never another runner's newer one
    psql("CREATE DATABASE shared")
    shared = dict(ENV, PGRTT_DB=uri("shared"))
    run("analyze", *WEB, "--db", uri("shared"), "--app", "shop", "--label", "branch=main",
        os.path.join(CAP, "web-ping-query.pcap"))
    run("analyze", *WEB, "--db", uri("shared"), "--app", "other", "--label", "branch=main",
        os.path.join(CAP, "web-noping.pcap"))
    gate = ["--forbid", "acquire-ping", "--max-rt-per-page", "4"]
    p = run("audit", *gate, env=shared)
    check("a shared store of two apps, no --app: refused (64), the apps listed",
          (p.returncode, "other, shop" in p.stderr, p.stdout), (64, True, ""))
    p = run("audit", "--app", "shop", *gate, env=shared)
    check("--app shop: its own run judged and failed, though another app's is newer",
          (p.returncode, p.stdout.startswith("audited run 1 (app shop; branch=main;")), (1, True))
    p = run("audit", "--app", "other", "--label", "branch=main", *gate, env=shared)
    check("--app other --label branch=main: its run passes", (p.returncode, "audited run 2" in p.stdout),
          (0, True))
    p = run("audit", "--app", "shop", "--label", "branch=dev", *gate, env=shared)
    check("no run of that app and label: exit 2, nothing judged",
          (p.returncode, p.stdout, "no run of the --app and --label given" in p.stderr), (2, "", True))
    p = run("audit", "--app", "shop", "--run", "2", *gate, env=shared)
    check("--run N of another app than --app: refused", (p.returncode, p.stdout), (2, ""))
    # a deleted run goes with all its rows
    p = run("runs", "--db", uri("central"), "delete", ids["sqlx"])
    check("delete: the run and its rows", (p.returncode, psql(
        f"SELECT count(*) FROM run_classes WHERE run_id = {ids['sqlx']}", "central")), (0, "0"))

    # an older schema: refused by a reader with the way out, upgraded by a writer
    psql("CREATE DATABASE old")
    subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "old",
                    "-qX", "-v", "ON_ERROR_STOP=1", "-f",
                    os.path.join(SRC, "tests", "store", "schema-pg-v1.sql")],
                   check=True, capture_output=True, env=ENV)
    p = run("report", "--db", uri("old"))
    check("a reader on schema 1: refused, and says how to upgrade",
          (p.returncode, "run pgrtt analyze --db on it once" in p.stderr), (2, True))
    p = run("analyze", *WEB, "--db", uri("old"), "--app", "new", os.path.join(CAP, "web-ping-page.pcap"))
    check("a writer upgrades schema 1 and stores its run",
          (p.returncode, psql("SELECT max(version) FROM pgrtt_schema", "old"),
           psql("SELECT count(*) FROM runs", "old")), (0, "8", "2"))
    d = json.loads(run("report", "--db", uri("old"), "-F", "json").stdout)
    check("the old run kept, with its classes; the new one beside it",
          sorted((r["app"], r["round_trips"], r["by_class"]["query"]) for r in d["runs"]),
          [("new", 26, 18), ("old", 7, 6)])

    # a role that may read only
    psql("CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader",
         "central")
    p = run("analyze", *WEB, "--db", uri("central", "reader"), os.path.join(CAP, "web-noping.pcap"))
    check("a read-only role cannot store: exit 2, and why",
          (p.returncode, "permission denied" in p.stderr, "a role that may insert" in p.stderr),
          (2, True, True))
    check("... nothing half-stored", psql("SELECT count(*) FROM runs", "central"), "3")
    p = run("report", "--db", uri("central", "reader"))
    check("a read-only role reads", (p.returncode, "| blog-noping |" in p.stdout), (0, True))

    # the password: libpq's sources, never printed, never stored
    psql("CREATE DATABASE scram OWNER pgrtt_scram")
    pw = "s3cret-pw"  # tests/pg_cluster.sh's SCRAM user
    p = run("analyze", *WEB, "--db", uri("scram", "pgrtt_scram"), os.path.join(CAP, "web-noping.pcap"),
            env=dict(ENV, PGPASSWORD=pw))
    check("PGPASSWORD: stored over SCRAM", p.returncode, 0)
    pgpass = os.path.join(tmp, "pgpass")
    open(pgpass, "w").write(f"127.0.0.1:{port}:scram:pgrtt_scram:{pw}\n")
    os.chmod(pgpass, 0o600)
    p = run("runs", "--db", uri("scram", "pgrtt_scram"), env=dict(ENV, PGPASSFILE=pgpass))
    check(".pgpass: read over SCRAM", (p.returncode, p.stdout.count("\n")), (0, 2))
    p = run("report", "--db", f"postgresql://pgrtt_scram:{pw}@127.0.0.1:{port}/nosuch?sslmode=disable")
    check("a password in the URI: not in the message", (p.returncode, pw in p.stderr,
                                                        "pgrtt_scram:***@" in p.stderr), (2, False, True))
    p = run("report", "--db", f"host=127.0.0.1 port={port} user=pgrtt_scram password={pw} dbname=nosuch")
    check("a password in key=value: not in the message", (p.returncode, pw in p.stderr,
                                                          "password=***" in p.stderr), (2, False, True))
    p = run("analyze", *WEB, "--db", f"postgresql://pgrtt_scram:{pw}@127.0.0.1:{port}/scram?sslmode=disable",
            os.path.join(CAP, "web-noping.pcap"))
    check("stored with a password in the URI: not printed", (p.returncode, pw in p.stdout + p.stderr),
          (0, False))
    # libpq's grammar: spaces around '=', quotes, escapes; every message of a
    # run stored that way (tests/unit/report/test_output.c's redaction: the rest)
    for dsn in (f"host=127.0.0.1 port={port} user=pgrtt_scram password = {pw} dbname=scram sslmode=disable",
                f"host=127.0.0.1 port={port} user=pgrtt_scram password='{pw}' dbname=scram sslmode=disable",
                f"postgresql://pgrtt_scram@127.0.0.1:{port}/scram?password={pw}&sslmode=disable"):
        p = run("analyze", *WEB, "--db", dsn, os.path.join(CAP, "web-noping.pcap"))
        check(f"stored through {dsn.replace(pw, 'PW')}: the password not printed",
              (p.returncode, "stored run" in p.stderr, pw in p.stdout + p.stderr, "***" in p.stderr),
              (0, True, False, True))
    dump = subprocess.run(["pg_dump", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "scram"],
                          capture_output=True, text=True, env=ENV).stdout
    check("... nor stored", (len(dump) > 1000, pw in dump), (True, False))
    # the store goes away during a capture --rotate, and comes back: the
    # runs of the outage wait in the spool and are delivered, none lost
    traffic = os.environ.get("PGRTT_PGPORT")  # pgbench on the test cluster meanwhile
    if not traffic:
        check("the test cluster for the outage's traffic (PGRTT_PGPORT)",
              not required(), True)
    else:
        import time
        psql("CREATE DATABASE outage")
        spool, wfile = os.path.join(tmp, "spool", "runs.db"), os.path.join(tmp, "outage.pcap")
        cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", "-p", traffic, "--rotate", "2s",
                                "--duration", "11", "--db", uri("outage"), "--spool", spool, "-w",
                                wfile, "--no-progress", "-F", "json", "-o", os.devnull],
                               stderr=subprocess.PIPE, text=True, env=ENV)
        pgenv = dict(ENV, PGHOST="127.0.0.1", PGPORT=traffic, PGUSER="postgres",
                     PGDATABASE="postgres", PGSSLMODE="disable")
        pb = subprocess.Popen(["pgbench", "-n", "-S", "-c", "2", "-R", "200", "-T", "10"], env=pgenv,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2.7)
        subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "stop", cluster, str(port)],
                       capture_output=True)
        time.sleep(4.5)  # two rotations while it is away
        subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "resume", cluster,
                        str(port)], capture_output=True)
        pb.wait(timeout=60)
        _, err = cap.communicate(timeout=60)
        check("outage: the capture went on and ended well", cap.returncode, 0)
        check("outage: runs waited in the spool, said", "waits in the spool" in err, True)
        check("outage: and were delivered when the store was back", "delivered" in err, True)
        n, rfq = psql("SELECT count(*), sum(ready_for_query) FROM runs", "outage").split("|")
        made = err.count("stored run ") + err.count("the run waits in the spool")
        check("outage: every run the capture made is in the store, the spooled ones too "
              "(11 s, a run every 2 s: 6, fewer when a period stretches)",
              (int(n), 4 <= int(n) <= 6), (made, True))
        check("outage: some runs were spooled", err.count("the run waits in the spool") >= 1, True)
        whole = json.loads(run("analyze", "-p", traffic, "-F", "json", wfile).stdout)["totals"]
        check("outage: no ReadyForQuery lost (the runs' sum = the -w file's)", int(rfq),
              whole["ready_for_query"])
        t = subprocess.run(["tshark", "-n", "-r", wfile, "-d", f"tcp.port=={traffic},pgsql", "-Y",
                            "pgsql", "-T", "fields", "-e", "pgsql.type"], capture_output=True,
                           text=True)
        check("outage: ... and tshark's count of them in the -w file", int(rfq),
              t.stdout.count("Ready for query"))
        check("outage: the spool empty after", json.loads(run("report", "--db", spool, "-F",
                                                              "json").stdout)["runs"], [])
finally:
    subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "stop", cluster, str(port)],
                   capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
