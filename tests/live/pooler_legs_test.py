#!/usr/bin/python3
"""pooler_legs_test.py PGRTT BLOGLOAD APP SRCDIR - PgBouncer (Debian's) in
transaction mode between the clients and the test cluster, both legs
captured (src/proto/legs.h).

 - pgbench -S (simple and extended protocol, 4 clients, 300 transactions
   each) through PgBouncer: the client's leg alone counts what pgbench ran,
   the server's leg alone the same statements (PgBouncer passes each on)
   and the SETs PgBouncer sends of its own,
   no pooler-legs on either; both ports given: the totals are the two legs'
   sum, and the pooler-legs warning names the server's port as the pooler's
   copy of the client's, for at least 75% of its statements (95% here);
   audit fails on it unless it is allowed;
 - the benchmark's C app (bench/apps/c-libpq, axum+sqlx with its acquire
   and release pings: 3 queries and 6 pings a detail page) through
   PgBouncer under 8 clients: each leg alone 9 round trips a page; both
   ports the warning, and the application's leg alone on the pages, 9
   (before: 18 and nothing said);
 - pgrtt capture on both ports under pgbench: the finding on --metrics
   (pgrtt_finding) while it runs, and said when it ends;
 - a relay on the server's own port at another address
   (tests/clients/relay.py, as docker-proxy publishes a container's port):
   both legs on one port, the default case of `tcpdump -i any port 5432`
   on a Docker host.  pgbench through it: the totals both legs', the
   warning naming the two endpoints, and each of the two filters it gives
   keeping one leg, pgbench's statements; the C app through it with
   --http-port: 9 round trips a page, its leg alone (18 before, and
   nothing said); pgrtt capture on the one port: the finding on --metrics.
Needs the test cluster (PGRTT_PGPORT) and pgbouncer."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, finish, skip  # noqa: E402
from livelib import RELAY_ADDR, blog_database, capture, free_port, start_relay  # noqa: E402
from livelib import wait_listening  # noqa: E402

PGRTT, BLOGLOAD, APP, SRC = (os.path.abspath(a) for a in sys.argv[1:5])
PORT = os.environ.get("PGRTT_PGPORT")
INI = """[databases]
* = host=127.0.0.1 port={pg}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
auth_type = trust
auth_file = {tmp}/users.txt
pool_mode = {mode}
default_pool_size = {size}
logfile = {tmp}/pgbouncer.log
pidfile = {tmp}/pgbouncer.pid
"""


def bouncer(tmp, mode="transaction"):
    """PgBouncer on a free port, as postgres (it will not run as root), its
    files in tmp: 4 server connections by transaction, or by session as many
    as the app's pool may open (its sixteenth would wait for a free one)."""
    port = free_port()
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "pgbouncer.ini"), "w") as f:
        f.write(INI.format(pg=PORT, port=port, tmp=tmp, mode=mode,
                           size=4 if mode == "transaction" else 20))
    with open(os.path.join(tmp, "users.txt"), "w") as f:
        f.write('"postgres" ""\n')
    shutil.chown(tmp, "postgres")
    for name in os.listdir(tmp):
        shutil.chown(os.path.join(tmp, name), "postgres")
    p = subprocess.Popen(["pgbouncer", "-u", "postgres", os.path.join(tmp, "pgbouncer.ini")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port)
    return p, port


def analyze(pcap, ports, more=()):
    argv = [PGRTT, "analyze", "-F", "json", "--no-progress", *more]
    for p in ports:
        argv += ["-p", str(p)]
    p = subprocess.run(argv + [pcap], capture_output=True, text=True)
    check(f"analyze -p {' -p '.join(map(str, ports))} {' '.join(more)} exits 0", p.returncode, 0)
    return json.loads(p.stdout) if p.returncode == 0 else None


def warning(d, code):
    return next((w for w in d["warnings"] if w["code"] == code), None) if d else None


def gate_fails_on(what, code, args):
    """audit with args fails on the finding code, says so, and passes with
    --allow code."""
    failed = subprocess.run([PGRTT, "audit", *args], capture_output=True, text=True)
    check(f"{what}: audit fails on {code}", failed.returncode, 1)
    check(f"{what}: audit says why", code in failed.stdout + failed.stderr, True)
    allowed = subprocess.run([PGRTT, "audit", "--allow", code, *args],
                             capture_output=True, text=True)
    check(f"{what}: audit --allow {code} passes", allowed.returncode, 0)


def statements(d):
    return d["totals"]["by_class"]["query"] if d else None


def pgbench_through(tmp, bport, db, mode):
    what = f"pgbench -S -M {mode} through PgBouncer"
    pcap = os.path.join(tmp, f"pgbench-{mode}.pcap")
    dsn = f"host=127.0.0.1 port={bport} user=postgres dbname={db} sslmode=disable"
    out = capture(pcap, (PORT, bport), lambda: subprocess.run(
        ["pgbench", "-n", "-S", "-M", mode, "-c", "4", "-j", "2", "-t", "300", dsn],
        capture_output=True, text=True))
    done = int(next((ln.split()[-1].split("/")[0] for ln in out.stdout.splitlines()
                     if "actually processed" in ln), "0"))
    check(f"{what}: pgbench ran 1200 transactions", done, 1200)
    client, server = analyze(pcap, [bport]), analyze(pcap, [PORT])
    both = analyze(pcap, [bport, PORT])
    n = statements(client)
    # pgbench's SELECTs and the scale it asks for as it starts
    check(f"{what}: the client's leg counts pgbench's statements ({n})",
          n is not None and 1200 <= n <= 1204, True)
    # PgBouncer passes each on, and sets what the client's startup asked
    # for (application_name ...) on a server connection it gives a client
    # whose settings differ: a SET on the server's leg only
    m = statements(server)
    check(f"{what}: the server's leg the same statements ({m}), and PgBouncer's SETs",
          n is not None and m is not None and n <= m <= n + 8, True)
    for name, d in (("the client's leg", client), ("the server's leg", server)):
        check(f"{what}: {name} alone: no pooler-legs", warning(d, "pooler-legs"), None)
    if not both or not client or not server:
        return
    check(f"{what}: both ports: every round trip counted on each leg (the sum)",
          both["totals"]["round_trips"],
          client["totals"]["round_trips"] + server["totals"]["round_trips"])
    w = warning(both, "pooler-legs")
    check(f"{what}: both ports: the pooler-legs warning", w is not None, True)
    if w:
        check(f"{what}: the warning names the server's port as the copy of the client's",
              f"on port {PORT} ran inside one on port {bport}" in w["message"], True)
        # 95% here; a loaded CI machine passes answers on later
        check(f"{what}: {w['count']} of the server leg's {m} statements matched (>= 75%)",
              w["count"] >= 0.75 * m and w["count"] <= m, True)
    gate_fails_on(what, "pooler-legs",
                  ["--forbid", "ping", "-p", str(bport), "-p", str(PORT), pcap])


def live_capture(bport, db, host="127.0.0.1"):
    """pgrtt capture on both ports while pgbench runs through PgBouncer:
    the finding is on /metrics while it runs (a scraper reads every round
    trip twice) and said when the capture ends.  bport None: through the
    relay at host, on the server's port alone."""
    ports = ["-p", str(bport), "-p", PORT] if bport else ["-p", PORT]
    what = ("pgrtt capture -p BOUNCER -p SERVER --metrics" if bport
            else "pgrtt capture -p SERVER --metrics, a relay on the server's port")
    mport = free_port()
    cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", *ports,
                            "--metrics", f"127.0.0.1:{mport}", "--no-progress", "-o", os.devnull],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(mport)
        time.sleep(0.5)  # libpcap's socket open before the load
        dsn = f"host={host} port={bport or PORT} user=postgres dbname={db} sslmode=disable"
        subprocess.run(["pgbench", "-n", "-S", "-c", "4", "-j", "2", "-t", "300", dsn],
                       check=True, capture_output=True)
        with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=10) as r:
            body = r.read().decode()
        found = [ln for ln in body.splitlines()
                 if ln.startswith("pgrtt_finding{") and 'code="pooler-legs"' in ln]
        check(f"{what}: pgrtt_finding pooler-legs (warning) while it runs",
              len(found) == 1 and 'severity="warning"' in found[0] and found[0].endswith(" 1"),
              True)
    finally:
        cap.send_signal(signal.SIGINT)
        _, err = cap.communicate(timeout=60)
    check(f"{what}: exits 0", cap.returncode, 0)
    check(f"{what}: the warning when it ends", "[pooler-legs]" in err, True)


def app_pages(what, pcap, host, port, db, ports):
    """The C app (axum+sqlx with pings) on host:port, 50 detail pages of 8
    clients captured on ports and its own; its HTTP port."""
    http = free_port()
    dsn = f"host={host} port={port} user=postgres dbname={db} sslmode=disable"
    app = subprocess.Popen([APP], env=dict(os.environ, PORT=str(http), POOL_MODE="axum-sqlx-ping",
                                           DATABASE_URL=dsn),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    load = ["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"), str(http), "8"]
    try:
        check(f"{what}: ready", app.stdout.readline().strip(), "ready")
        # the pool grows first: its startups are not the pages'
        subprocess.run(load + ["5", "/articles/3"], check=True, capture_output=True)
        capture(pcap, (*ports, http), lambda: subprocess.run(
            load + ["50", "/articles/3"], check=True, capture_output=True))
    finally:
        app.terminate()
        app.wait(timeout=30)
    return http


def app_through(tmp, bport, db):
    what = "the C app (axum+sqlx with pings) through PgBouncer"
    pcap = os.path.join(tmp, "app.pcap")
    http = app_pages(what, pcap, "127.0.0.1", bport, db, (PORT, bport))
    per_page = {}
    for name, ports in (("the client's leg", [bport]), ("the server's leg", [PORT]),
                        ("both ports", [bport, PORT])):
        d = analyze(pcap, ports, more=("--http-port", str(http)))
        r = next((x for x in (d["routes"] if d else []) if x["route"] == "GET /articles/{id}"),
                 None)
        check(f"{what}, {name}: 400 pages", r and r["pages"], 400)
        per_page[name] = r and r["round_trips_per_page"]["mean"]
        w = warning(d, "pooler-legs")
        check(f"{what}, {name}: pooler-legs said only with both ports", w is not None,
              name == "both ports")
        check(f"{what}, {name}: no pooler-server-leg (its server connections opened, and "
              "were set for these clients, before the capture)",
              warning(d, "pooler-server-leg"), None)
        if w:
            check(f"{what}, {name}: the server's leg said left out of pages",
                  f"pages count port {bport}'s round trips alone" in w["message"], True)
    check(f"{what}: the client's leg 9 round trips a page", per_page["the client's leg"], 9.0)
    check(f"{what}: the server's leg 9 round trips a page (PgBouncer passes the pings on)",
          per_page["the server's leg"], 9.0)
    # the server's leg off the pages once it is known for the pooler's (its
    # first round trips on them twice, and said)
    both = per_page["both ports"]
    check(f"{what}: both ports {both}: the application's leg alone, within 5% of 9",
          both is not None and 9.0 <= both <= 9.45, True)


def app_under_capture(tmp, name, bport, db, appname, beside=None):
    """The C app (axum+sqlx with pings) through the pooler on bport, its DSN
    naming it, started and stopped under a capture of the server's port,
    the pooler's and its own, 25 pages of 8 clients; beside: a command run
    through the pooler at the same time.  Returns (pcap, http port)."""
    http = free_port()
    dsn = (f"host=127.0.0.1 port={bport} user=postgres dbname={db} sslmode=disable "
           f"application_name={appname}")
    pcap = os.path.join(tmp, name + ".pcap")
    load = ["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"), str(http), "8"]

    def run():
        app = subprocess.Popen([APP], env=dict(os.environ, PORT=str(http),
                                               POOL_MODE="axum-sqlx-ping", DATABASE_URL=dsn),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        other = None
        try:
            check(f"{name}: the app ready", app.stdout.readline().strip(), "ready")
            if beside:
                other = subprocess.Popen(beside, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            subprocess.run(load + ["25", "/articles/3"], check=True, capture_output=True)
        finally:
            if other:
                other.wait(timeout=60)
            app.terminate()
            app.wait(timeout=30)
            time.sleep(0.5)  # the pooler's resets of the connections it gave the app
    capture(pcap, (PORT, bport, http), run)
    return pcap, http


def pgbench_beside(bport, db):
    return ["pgbench", "-n", "-S", "-c", "2", "-j", "1", "-t", "300",
            f"host=127.0.0.1 port={bport} user=postgres dbname={db} sslmode=disable"]


def server_leg_alone(tmp, bport, sport, db):
    """The server's leg alone with --http-port, as `-p 5432` picks it with
    PgBouncer on the application's host (src/findings/evidence.c, pooler_server_leg):
    - the C app alone through the transaction pooler, started under the
      capture: PgBouncer's SETs as it first gives each server connection
      out, nothing that shows how it pools - the note pooler-server-conns;
    - the same with pgbench beside it (other settings, as a worker beside
      a web app): SETs after the other client's statements - handed on
      mid-session - the warning pooler-server-leg, audit failing on it;
      without --http-port the note that the pings' roles are not the pool's;
    - the C app through a session pooler (sport), stopped under the
      capture: its connections reset (DISCARD ALL) - nothing said;
    never on the application's leg, nor with both legs (pooler-legs)."""
    what = "the C app alone through PgBouncer (transaction), its start captured"
    pcap, http = app_under_capture(tmp, "app-start", bport, db, "blog")
    pages = ("--http-port", str(http))
    server = analyze(pcap, [PORT], more=pages)
    w = warning(server, "pooler-server-conns")
    check(f"{what}: the server's leg: the note pooler-server-conns, not the warning",
          (w is not None and w["severity"] == "note", warning(server, "pooler-server-leg")),
          (True, None))
    if w:
        check(f"{what}: it names the port and PgBouncer's SETs ({w['count']} connections)",
              f"on port {PORT} look like a pooler's server connections" in w["message"] and
              w["count"] >= 2 and "its pooling mode not shown" in w["message"], True)
    client = analyze(pcap, [bport], more=pages)
    check(f"{what}: the application's leg: neither",
          (warning(client, "pooler-server-conns"), warning(client, "pooler-server-leg")),
          (None, None))

    what = "the C app and pgbench through PgBouncer (transaction)"
    pcap, http = app_under_capture(tmp, "app-pgbench", bport, db, "blog2",
                                   beside=pgbench_beside(bport, db))
    pages = ("--http-port", str(http))
    server = analyze(pcap, [PORT], more=pages)
    w = warning(server, "pooler-server-leg")
    check(f"{what}: the server's leg: the warning pooler-server-leg", w is not None, True)
    if w:
        check(f"{what}: it says transaction pooling, from SETs after a client's statements",
              f"on port {PORT} are a transaction pooler's server connections" in w["message"]
              and w["severity"] == "warning" and w["count"] >= 2, True)
    client = analyze(pcap, [bport], more=pages)
    check(f"{what}: the application's leg: no pooler-server-leg",
          warning(client, "pooler-server-leg"), None)
    both = analyze(pcap, [bport, PORT], more=pages)
    check(f"{what}: both ports: pooler-legs, not pooler-server-leg",
          (warning(both, "pooler-legs") is not None, warning(both, "pooler-server-leg")),
          (True, None))
    plain = analyze(pcap, [PORT])
    n = warning(plain, "pooler-server-conns")
    check(f"{what}: the server's leg without pages: no pooler-server-leg (its counts are "
          "what the server ran), the note that its pings' roles are not the pool's",
          (warning(plain, "pooler-server-leg"), n is not None and
           "are a transaction pooler's server connections" in n["message"] and
           "the pings' roles (acquire, release) here are not the pool's" in n["message"]),
          (None, True))
    gate_fails_on(what, "pooler-server-leg",
                  ["--max-rt-per-page", "100", "-p", PORT, "--http-port", str(http), pcap])

    what = "the C app through PgBouncer (session), started and stopped under the capture"
    pcap, http = app_under_capture(tmp, "app-session", sport, db, "blog")
    server = analyze(pcap, [PORT], more=("--http-port", str(http)))
    check(f"{what}: the server's leg: neither (a client keeps its server connection)",
          (warning(server, "pooler-server-conns"), warning(server, "pooler-server-leg")),
          (None, None))


def server_leg_live(bport, db):
    """pgrtt capture on the server's port alone with --http-port while the
    C app starts through PgBouncer beside pgbench: pooler-server-leg on
    --metrics while the capture runs - the server connections stay open,
    their signs counted as they come."""
    what = "pgrtt capture -p SERVER --http-port --metrics, the app through PgBouncer"
    http, mport = free_port(), free_port()
    dsn = (f"host=127.0.0.1 port={bport} user=postgres dbname={db} sslmode=disable "
           "application_name=blog-live")
    cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", "-p", PORT, "--http-port", str(http),
                            "--metrics", f"127.0.0.1:{mport}", "--no-progress", "-o", os.devnull],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    app = None
    try:
        wait_listening(mport)
        time.sleep(0.5)  # libpcap's socket open before the load
        app = subprocess.Popen([APP], env=dict(os.environ, PORT=str(http),
                                               POOL_MODE="axum-sqlx-ping", DATABASE_URL=dsn),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        check(f"{what}: ready", app.stdout.readline().strip(), "ready")
        other = subprocess.Popen(pgbench_beside(bport, db), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        load = ["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"), str(http),
                "8", "10", "/articles/3"]
        subprocess.run(load, check=True, capture_output=True)
        other.wait(timeout=60)
        time.sleep(1.5)  # the capture's settling pass: a second
        with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=10) as r:
            body = r.read().decode()
        found = [ln for ln in body.splitlines()
                 if ln.startswith("pgrtt_finding{") and 'code="pooler-server-leg"' in ln]
        check(f"{what}: pgrtt_finding pooler-server-leg (warning) while it runs",
              len(found) == 1 and 'severity="warning"' in found[0], True)
    finally:
        if app:
            app.terminate()
            app.wait(timeout=30)
        cap.send_signal(signal.SIGINT)
        _, err = cap.communicate(timeout=60)
    check(f"{what}: exits 0", cap.returncode, 0)
    check(f"{what}: the warning when it ends", "[pooler-server-leg]" in err, True)


def relay():
    """A relay on the cluster's port (livelib.start_relay): both legs on one
    port."""
    p, ready = start_relay(PORT)
    check("the relay ready", ready, True)
    return p


def relay_filters(w):
    """The two -f expressions the warning gives: (the application's leg,
    the server's)."""
    m = re.search(r"-f '(not \(.*?\))': the application's.*?-f '(.*?)': the server's",
                  w["message"] if w else "")
    return (m.group(1), m.group(2)) if m else (None, None)


def relay_pgbench(tmp, db):
    what = "pgbench -S through a relay on the server's port"
    pcap = os.path.join(tmp, "relay-pgbench.pcap")
    dsn = f"host={RELAY_ADDR} port={PORT} user=postgres dbname={db} sslmode=disable"
    out = capture(pcap, (PORT,), lambda: subprocess.run(
        ["pgbench", "-n", "-S", "-M", "extended", "-c", "4", "-j", "2", "-t", "300", dsn],
        capture_output=True, text=True))
    done = int(next((ln.split()[-1].split("/")[0] for ln in out.stdout.splitlines()
                     if "actually processed" in ln), "0"))
    check(f"{what}: pgbench ran 1200 transactions", done, 1200)
    both = analyze(pcap, [PORT])
    w = warning(both, "pooler-legs")
    check(f"{what}: the pooler-legs warning on one port", w is not None, True)
    if not w:
        return
    check(f"{what}: the warning names the server's endpoint as the relay's copy",
          f"round trips to 127.0.0.1:{PORT} ran inside one to {RELAY_ADDR}:{PORT}"
          in w["message"], True)
    app_f, server_f = relay_filters(w)
    check(f"{what}: the warning gives a filter for each leg", app_f is not None, True)
    if not app_f:
        return
    app, server = analyze(pcap, [PORT], ("-f", app_f)), analyze(pcap, [PORT], ("-f", server_f))
    n, m = statements(app), statements(server)
    check(f"{what}: -f '{app_f}' keeps pgbench's statements ({n})",
          n is not None and 1200 <= n <= 1204, True)
    check(f"{what}: -f '{server_f}' the same statements ({m}), the server's", m, n)
    for name, d in (("the application's leg", app), ("the server's leg", server)):
        check(f"{what}: {name} alone: no pooler-legs", warning(d, "pooler-legs"), None)
    if app and server:
        check(f"{what}: both legs: every round trip counted on each (the sum)",
              both["totals"]["round_trips"],
              app["totals"]["round_trips"] + server["totals"]["round_trips"])
        check(f"{what}: {w['count']} of the server leg's {m} statements matched (>= 75%)",
              w["count"] >= 0.75 * m and w["count"] <= m, True)
    gate_fails_on(what, "pooler-legs", ["--forbid", "ping", "-p", PORT, pcap])


def relay_app(tmp, db):
    what = "the C app (axum+sqlx with pings) through a relay on the server's port"
    pcap = os.path.join(tmp, "relay-app.pcap")
    http = app_pages(what, pcap, RELAY_ADDR, PORT, db, (PORT,))
    d = analyze(pcap, [PORT], more=("--http-port", str(http)))
    r = next((x for x in (d["routes"] if d else []) if x["route"] == "GET /articles/{id}"), None)
    check(f"{what}: 400 pages", r and r["pages"], 400)
    w = warning(d, "pooler-legs")
    check(f"{what}: pooler-legs", w is not None, True)
    check(f"{what}: the server's leg said left out of pages",
          w is not None and "pages count the relay's round trips alone" in w["message"], True)
    got = r and r["round_trips_per_page"]["mean"]
    # the server's leg off the pages once it is known (its first round
    # trips on them twice, and said)
    check(f"{what}: {got} round trips a page: the application's leg alone, within 5% of 9",
          got is not None and 9.0 <= got <= 9.45, True)
    app_f, _ = relay_filters(w)
    if app_f:
        d = analyze(pcap, [PORT], more=("--http-port", str(http), "-f", app_f))
        r = next((x for x in (d["routes"] if d else []) if x["route"] == "GET /articles/{id}"),
                 None)
        check(f"{what}: -f '{app_f}': 9 round trips a page, exactly",
              r and r["round_trips_per_page"]["mean"], 9.0)


def main():
    if not PORT:
        skip("no test cluster (PGRTT_PGPORT unset)")
    if not shutil.which("pgbouncer"):
        skip("no pgbouncer")
    dsn = blog_database(PORT, "blogpooler", BLOGLOAD)
    check("the seed's dataset", dsn is not None, True)
    env = dict(os.environ, PGHOST="127.0.0.1", PGPORT=PORT, PGUSER="postgres", PGSSLMODE="disable")
    subprocess.run(["pgbench", "-i", "-s", "1", "-q", "blogpooler"], env=env, check=True,
                   capture_output=True)
    tmp = tempfile.mkdtemp(prefix="pgrtt-pooler-")
    os.chmod(tmp, 0o755)
    p, bport = bouncer(tmp)
    sp, sport = bouncer(os.path.join(tmp, "session"), "session")
    try:
        for mode in ("simple", "extended"):
            pgbench_through(tmp, bport, "blogpooler", mode)
        live_capture(bport, "blogpooler")
        app_through(tmp, bport, "blogpooler")
        server_leg_alone(tmp, bport, sport, "blogpooler")
        server_leg_live(bport, "blogpooler")
        rl = relay()
        try:
            relay_pgbench(tmp, "blogpooler")
            relay_app(tmp, "blogpooler")
            live_capture(None, "blogpooler", RELAY_ADDR)
        finally:
            rl.terminate()
            rl.wait(timeout=30)
    finally:
        for b in (p, sp):
            b.terminate()
            b.wait(timeout=30)
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
