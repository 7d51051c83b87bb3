#!/usr/bin/python3
"""test_store_faults.py PGRTT SRCDIR - a live capture and its central store
under faults (issue 44): a Latin-1 application_name, a store that refuses one
run for its content, a spool that cannot be written, a store that accepts and
never answers, a store frozen mid-capture (SIGSTOP), a kill -9 between the
store's commit and the spool's delete, a database of another program.

The store is a throwaway cluster of its own (tests/pg_cluster.sh); the
traffic captured on lo is pgbench and psql on the test cluster
(PGRTT_PGPORT), whose own statistics count what pgrtt must count."""
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PGRTT, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path[:0] = [os.path.join(SRC, "tests"), os.path.join(SRC, "tests", "live")]
from checklib import check, failures, skip  # noqa: E402
from livelib import free_port  # noqa: E402

TRAFFIC = os.environ.get("PGRTT_PGPORT")
if not TRAFFIC or not os.path.isdir("/usr/lib/postgresql") or os.geteuid() != 0:
    skip("needs root, PostgreSQL's server and the test cluster (PGRTT_PGPORT)")

tmp = tempfile.mkdtemp(prefix="pgrtt-faults-")
os.chmod(tmp, 0o755)  # the cluster runs as postgres
port = free_port()
cluster = os.path.join(tmp, "pg")
ENV = dict(os.environ)
for k in ("PGRTT_DB", "PGPASSWORD", "PGCONNECT_TIMEOUT", "PGRTT_FAULT"):
    ENV.pop(k, None)
PGENV = dict(ENV, PGHOST="127.0.0.1", PGPORT=TRAFFIC, PGUSER="postgres", PGDATABASE="postgres",
             PGSSLMODE="disable")
LATIN1 = b"caf\xe9".decode("latin-1")  # what a Latin-1 client puts in its StartupMessage


def psql(sql, db="postgres"):
    p = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", db, "-qAtX",
                        "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True, env=ENV)
    if p.returncode:
        raise SystemExit(f"FAIL psql {sql!r}: {p.stderr}")
    return p.stdout.strip()


def uri(db):
    return f"postgresql://postgres@127.0.0.1:{port}/{db}?sslmode=disable"


def client(appname, sql="SELECT 1"):
    """A psql on the traffic cluster whose StartupMessage carries appname
    as bytes (Latin-1 when it is not ASCII)."""
    env = {k.encode(): v.encode() for k, v in PGENV.items()}
    env[b"PGAPPNAME"] = appname.encode("latin-1")
    subprocess.run([b"psql", b"-qAtX", b"-c", sql.encode()], env=env, capture_output=True, check=True)


def capture(*args, during=None, env=None, **kw):
    """pgrtt capture on lo of the traffic cluster, with pgbench meanwhile
    and during(t0) run beside it; (process, stderr)."""
    cmd = [PGRTT, "capture", "-i", "lo", "-p", TRAFFIC, "--no-progress", "-o", os.devnull, *args]
    cap = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env or ENV, **kw)
    time.sleep(0.5)
    pb = subprocess.Popen(["pgbench", "-n", "-S", "-c", "1", "-R", "50", "-T", "4"], env=PGENV,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if during:
        during(cap)
    _, err = cap.communicate(timeout=120)
    pb.wait(timeout=60)
    return cap, err


def runs_in(path):
    p = subprocess.run([PGRTT, "report", "--db", path, "-F", "json"], capture_output=True, text=True)
    return json.loads(p.stdout)["runs"] if p.returncode == 0 else None


def store_pids():
    """The store cluster's postmaster and its children."""
    pm = int(open(os.path.join(cluster, "data", "postmaster.pid")).readline())
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]) == pm:
                    kids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return [pm, *kids]


try:
    p = subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "start", cluster, str(port)],
                       capture_output=True, text=True)
    check("the store's cluster started", p.returncode, 0)

    # 1. a Latin-1 application_name, as PostgreSQL itself accepts it: the
    # run is stored, the name's bad byte escaped, in both stores alike
    psql("CREATE DATABASE latin")
    wfile = os.path.join(tmp, "latin1.pcap")
    cap, err = capture("-w", wfile, "--duration", "3",
                       during=lambda c: (time.sleep(0.5), client(LATIN1)))
    a = subprocess.run([PGRTT, "analyze", "-p", TRAFFIC, "--db", uri("latin"), wfile], capture_output=True,
                       text=True, env=ENV)
    check("a Latin-1 application_name: analyze --db postgresql:// stores the run",
          (a.returncode, "stored run 1" in a.stderr), (0, True))
    check("... the name kept, its bad byte as \\xe9",
          psql("SELECT count(*) FROM connections WHERE application_name = 'caf\\xe9'", "latin"), "1")
    lite = os.path.join(tmp, "latin.db")
    subprocess.run([PGRTT, "analyze", "-p", TRAFFIC, "--db", lite, wfile], capture_output=True, env=ENV)
    out = subprocess.run(["sqlite3", lite, "SELECT count(*) FROM connections WHERE "
                          "application_name = 'caf\\xe9'"], capture_output=True, text=True).stdout
    check("... the same text in SQLite", out.strip(), "1")

    # 2. the store refuses one period's run for its content (a trigger, as a
    # DBA's check would): kept aside with the reason, the next runs stored
    # directly, nothing spooled, nothing retried
    psql("CREATE DATABASE refusing")
    subprocess.run([PGRTT, "analyze", "-p", TRAFFIC, "--db", uri("refusing"), wfile], capture_output=True,
                   env=ENV, check=True)  # the schema, made
    psql("DELETE FROM runs", "refusing")
    psql("CREATE FUNCTION no_pill() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
         "IF NEW.application_name = 'poison-pill' THEN RAISE EXCEPTION 'no pills here'; END IF; "
         "RETURN NEW; END $$; CREATE TRIGGER no_pill BEFORE INSERT ON connections FOR EACH ROW "
         "EXECUTE FUNCTION no_pill()", "refusing")
    spool = os.path.join(tmp, "spool2", "runs.db")
    aside = os.path.join(tmp, "spool2", "runs-refused.db")
    cap, err = capture("--rotate", "2s", "--duration", "7", "--db", uri("refusing"), "--spool", spool,
                       during=lambda c: (time.sleep(0.3), client("poison-pill")))
    stored = int(psql("SELECT count(*) FROM runs", "refusing"))
    check("a refused run: the capture goes on and ends well", cap.returncode, 0)
    check("... said once, with the store's reason",
          (err.count("refused the run"), "no pills here" in err), (1, True))
    check("... never spooled", "waits in the spool" in err, False)
    check("... the other runs stored directly (two or more in 7 s)",
          (stored, err.count("stored run "), stored >= 2), (err.count("stored run "), stored, True))
    kept = runs_in(aside)
    check("... the refused run kept aside, its reason a label",
          (len(kept or []), "no pills here" in (kept or [{}])[0].get("labels", "")), (1, True))

    # 3. a spool holding a run the store refuses, and others: delivery puts
    # it aside and goes on; the runs of the capture are stored, not queued
    spool3 = os.path.join(tmp, "spool3", "runs.db")
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/refusing?sslmode=disable"
    cap, err = capture("--rotate", "2s", "--duration", "5", "--db", dead, "--spool", spool3,
                       during=lambda c: (time.sleep(0.3), client("poison-pill")))
    waiting = len(runs_in(spool3) or [])
    check("store away: every run spooled", (cap.returncode, waiting >= 2,
                                            err.count("waits in the spool")), (0, True, waiting))
    before = int(psql("SELECT count(*) FROM runs", "refusing"))
    cap, err = capture("--duration", "2", "--db", uri("refusing"), "--spool", spool3)
    after = int(psql("SELECT count(*) FROM runs", "refusing"))
    check("store back: the spool delivered past the refused run, and this run stored",
          (cap.returncode, after - before, "refused 1 spooled run" in err, runs_in(spool3)),
          (0, waiting, True, []))
    check("... the refused one aside", len(runs_in(os.path.join(tmp, "spool3", "runs-refused.db")) or []),
          1)

    # 4. a spool that cannot be written (root's, the capture as nobody):
    # the store is up, so the runs go to it; the spool is said once
    spool4 = os.path.join(tmp, "spool4", "runs.db")
    capture("--duration", "2", "--db", dead, "--spool", spool4)
    os.chmod(os.path.dirname(spool4), 0o700)
    os.chmod(spool4, 0o600)
    nobody = pwd.getpwnam("nobody")
    check("a root-owned spool with a run in it", (len(runs_in(spool4) or []), os.stat(spool4).st_uid),
          (1, 0))
    before = int(psql("SELECT count(*) FROM runs", "refusing"))
    cap, err = capture("-Z", "nobody", "--rotate", "2s", "--duration", "5", "--db", uri("refusing"),
                       "--spool", spool4)
    after = int(psql("SELECT count(*) FROM runs", "refusing"))
    check("-Z nobody, spool unwritable, store up: every run stored, exit 0",
          (cap.returncode, after - before, after - before >= 2, err.count("stored run ")),
          (0, err.count("stored run "), True, after - before))
    check("... the spool said once", err.count("runs go to the store directly"), 1)
    del nobody

    # 5. a store that accepts connections and never answers: the capture
    # listens after one deadline, its runs spooled, and it ends in time
    tarpit = socket.socket()
    tarpit.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tarpit.bind(("127.0.0.1", 0))
    tarpit.listen(64)
    held = []
    threading.Thread(target=lambda: [held.append(tarpit.accept()) for _ in range(64)], daemon=True).start()
    spool5 = os.path.join(tmp, "spool5", "runs.db")
    t0 = time.monotonic()
    cap, err = capture("--rotate", "2s", "--duration", "6", "--db",
                       f"postgresql://postgres@127.0.0.1:{tarpit.getsockname()[1]}/x", "--spool", spool5)
    took = time.monotonic() - t0
    check("a tarpit store: exit 0, every run spooled",
          (cap.returncode, len(runs_in(spool5) or []), "listening on lo" in err),
          (0, err.count("waits in the spool"), True))
    check("... a run every rotation", err.count("waits in the spool") >= 3, True)
    check(f"... in one deadline at the start and one at the end, not one a rotation ({took:.1f} s)",
          took < 6 + 2 * 5 + 4, True)

    # 6. the store frozen mid-capture (SIGSTOP): the rotation gives up
    # after the deadline, the run is spooled, SIGINT ends the capture in
    # time; the store thawed, the next capture delivers
    psql("CREATE DATABASE frozen")
    spool6 = os.path.join(tmp, "spool6", "runs.db")

    def freeze(c):
        time.sleep(2.5)
        for pid in store_pids():
            os.kill(pid, signal.SIGSTOP)
        time.sleep(3)
        c.send_signal(signal.SIGINT)
        freeze.at = time.monotonic()

    try:
        cap, err = capture("--rotate", "2s", "--duration", "30", "--db", uri("frozen"), "--spool", spool6,
                           during=freeze)
        ended = time.monotonic() - freeze.at
    finally:
        for pid in store_pids():
            os.kill(pid, signal.SIGCONT)
    check(f"a frozen store: SIGINT ends the capture within a deadline or two ({ended:.1f} s)",
          (cap.returncode, ended < 12), (0, True))
    spooled = len(runs_in(spool6) or [])
    check("... the runs it could not store spooled", (spooled >= 1, "no answer in 5 s" in err), (True, True))
    stored = int(psql("SELECT count(*) FROM runs", "frozen"))
    cap, err = capture("--duration", "1", "--db", uri("frozen"), "--spool", spool6)
    check("... delivered when it thaws, none twice",
          (int(psql("SELECT count(*) FROM runs", "frozen")), psql(
              "SELECT count(DISTINCT run_key) = count(*) FROM runs", "frozen")), (stored + spooled + 1, "t"))

    # 7. kill -9 between the store's commit and the spool's delete: the run
    # is in both; the next delivery finds it by its key and stores it once
    psql("CREATE DATABASE once")
    spool7 = os.path.join(tmp, "spool7", "runs.db")
    once = f"postgresql://postgres@127.0.0.1:{free_port()}/once?sslmode=disable"
    capture("--rotate", "1s", "--duration", "3", "--db", once, "--spool", spool7)
    spooled = len(runs_in(spool7) or [])
    cap, err = capture("--duration", "2", "--db", uri("once"), "--spool", spool7,
                       env=dict(ENV, PGRTT_FAULT="spool-delivered"))
    check("the fault: killed after the first delivery's commit", (cap.returncode, spooled >= 2,
                                                                  psql("SELECT count(*) FROM runs", "once")),
          (-signal.SIGKILL, True, "1"))
    check("... the delivered run still in the spool", len(runs_in(spool7) or []), spooled)
    cap, err = capture("--duration", "1", "--db", uri("once"), "--spool", spool7)
    check("the next capture: each spooled run once, and its own",
          (cap.returncode, psql("SELECT count(*) FROM runs", "once"),
           psql("SELECT count(DISTINCT run_key) FROM runs", "once"), runs_in(spool7)),
          (0, str(spooled + 1), str(spooled + 1), []))

    # 8. a database that holds another program's tables is not made a store
    psql("CREATE DATABASE shop")
    psql("CREATE TABLE customers (id int)", "shop")
    a = subprocess.run([PGRTT, "analyze", "-p", TRAFFIC, "--db", uri("shop"), wfile], capture_output=True,
                       text=True, env=ENV)
    check("another program's database: refused, exit 2, said",
          (a.returncode, "not a pgrtt database" in a.stderr), (2, True))
    check("... nothing created in it",
          psql("SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'", "shop"),
          "customers")
finally:
    subprocess.run(["sh", os.path.join(SRC, "tests", "pg_cluster.sh"), "stop", cluster, str(port)],
                   capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
