#!/usr/bin/python3
"""live.py PGRTT PGCLIENT SRCDIR SCENARIO - capture a real client against the
test cluster (tests/pg_cluster.sh, port $PGRTT_PGPORT) with tcpdump, then
check pgrtt's counts against what the client reports it did and against
tshark's ReadyForQuery count on the same file.

Exit 0 pass, 1 fail, 77 skip (no cluster; a failure when PGRTT_REQUIRE_LIVE=1).
"""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from checklib import skip  # noqa: E402

PORT = os.environ.get("PGRTT_PGPORT")
CI = f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres sslmode=disable"
ENV = dict(os.environ, PGHOST="127.0.0.1", PGPORT=PORT or "", PGUSER="postgres",
           PGDATABASE="postgres", PGSSLMODE="disable")
PGBENCH_SCRIPT = ("\\set aid random(1, 100000)\n"
                  "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
                  "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n")


def capture(pcap, argv, env=ENV, extra_port=None):
    """Run argv while tcpdump writes pcap; return the client's stdout.  A
    capture that lost packets would test the capture, not pgrtt: it is
    made again, three times at most (a CI run lost 50 packets of pgbench's
    while another build took the CPU)."""
    for attempt in range(3):
        out, dropped = capture_once(pcap, argv, env, extra_port)
        if not dropped:
            return out
        print(f"note: tcpdump dropped {dropped} packets (attempt {attempt + 1}): captured again",
              flush=True)
    raise SystemExit(f"FAIL tcpdump dropped {dropped} packets three times; the load is too "
                     "heavy for this machine")


def capture_once(pcap, argv, env, extra_port):
    err = pcap + ".err"
    filt = f"tcp port {PORT}" + (f" or tcp port {extra_port}" if extra_port else "")
    with open(err, "w") as e:
        td = subprocess.Popen(["tcpdump", "-i", "lo", "-s", "0", "-B", "65536", "-U", "--immediate-mode",
                               "-Z", "root", "-w", pcap, filt],
                              stdout=subprocess.DEVNULL, stderr=e)
    for _ in range(100):
        if "listening" in open(err).read():
            break
        time.sleep(0.05)
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        td.terminate()
        raise SystemExit(f"FAIL client {argv}: {out.stderr}")
    time.sleep(0.5)
    td.send_signal(2)
    td.wait(timeout=30)
    dropped = re.search(r"(\d+) packets? dropped by kernel", open(err).read())
    return out.stdout, int(dropped.group(1)) if dropped else 0


def tshark_tls(pcap):
    """TCP connections in which tshark decodes TLS records on PORT."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-d", f"tcp.port=={PORT},tls", "-Y",
                          "tls.record", "-T", "fields", "-e", "tcp.stream"],
                         capture_output=True, text=True).stdout
    return len(set(out.split()))


def pgrtt_json(pgrtt, pcap, extra=()):
    argv = [pgrtt, "analyze", "-p", PORT, "-F", "json", "--no-progress", *extra, pcap]
    # two threads, as for a large file, whatever this one's size
    p = subprocess.run(argv, capture_output=True, text=True,
                       env=dict(os.environ, PGRTT_THREADS="2"))
    if p.returncode != 0:
        raise SystemExit(f"FAIL pgrtt exited {p.returncode}: {p.stderr}")
    out = json.loads(p.stdout)
    if "--http-port" in extra:
        # attribution runs on a thread of its own when a large file is
        # read: on one thread (PGRTT_THREADS=1) the figures are the same
        q = subprocess.run(argv, capture_output=True, text=True,
                           env=dict(os.environ, PGRTT_THREADS="1"))
        one = json.loads(q.stdout)
        one.pop("pgrtt", None)
        if one != {k: v for k, v in out.items() if k != "pgrtt"}:
            raise SystemExit(f"FAIL {pcap}: analyze --http-port differs on one thread")
    return out


def tshark_rfq(pcap):
    """ReadyForQuery messages as tshark decodes them, per message (-Y alone
    would count frames, and a pipelined answer carries many in one frame)."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-d", f"tcp.port=={PORT},pgsql", "-Y",
                          "pgsql", "-T", "fields", "-e", "pgsql.type"],
                         capture_output=True, text=True, check=True)
    return out.stdout.count("Ready for query")


def kv(text):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", text)}


class Checker:
    def __init__(self, name):
        self.name, self.failed = name, 0

    def eq(self, what, got, want):
        ok = got == want
        self.failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {self.name}: {what}: got {got!r}, want {want!r}")


def main():
    pgrtt, pgclient, src, scenario = sys.argv[1:5]
    if not PORT:
        skip("no test cluster (PGRTT_PGPORT unset)")
    global TMP
    tmp = TMP = tempfile.mkdtemp(prefix="pgrtt-live-")
    pcap = os.path.join(tmp, scenario + ".pcap")
    c = Checker(scenario)
    pools = [ "/usr/bin/python3", os.path.join(src, "tests/clients/pools.py"), CI]

    if scenario.startswith("pgbench-"):
        mode = scenario.split("-", 1)[1]
        subprocess.run(["pgbench", "-i", "-s", "1", "-q"], env=ENV, capture_output=True)
        script = os.path.join(tmp, "pb.sql")
        open(script, "w").write(PGBENCH_SCRIPT)
        out = capture(pcap, ["pgbench", "-n", "-M", mode, "-c", "4", "-j", "2", "-t", "50",
                             "-f", script])
        tx = int(re.search(r"actually processed: (\d+)", out).group(1))
        d = pgrtt_json(pgrtt, pcap)
        c.eq("transactions x 2 statements = query round trips", d["totals"]["by_class"]["query"], 2 * tx)
        c.eq("startups = 4 clients + pgbench's own", d["totals"]["by_class"]["startup"], 5)
        if mode == "prepared":
            c.eq("one prepare per statement and connection", d["totals"]["by_class"]["prepare"], 8)
        c.eq("round trips", d["totals"]["round_trips"], d["totals"]["ready_for_query"])
    elif scenario in ("pipeline", "sqlxlike", "flush", "fastpath"):
        n = {"pipeline": 50, "sqlxlike": 30, "flush": 10, "fastpath": 5}[scenario]
        want = kv(capture(pcap, [pgclient, CI, scenario, str(n)]))
        d = pgrtt_json(pgrtt, pcap)
        t = d["totals"]
        c.eq("ready_for_query", t["ready_for_query"], want["ready_for_query"])
        c.eq("round_trips", t["round_trips"], want["round_trips"])
        c.eq("pings", t["by_class"]["ping"], want["pings"])
        c.eq("acquire pings", t["pings"]["acquire"], want["acquire"])
        c.eq("release pings", t["pings"]["release"], want["release"])
        if scenario == "fastpath":
            c.eq("function calls", t["by_class"]["function"], 2 * n)
    elif scenario in ("sqlalchemy-preping", "psycopg2-semicolon"):
        want = kv(capture(pcap, pools + [scenario, "20"]))
        t = pgrtt_json(pgrtt, pcap)["totals"]
        c.eq("pings", t["by_class"]["ping"], want["pings"])
        c.eq("acquire pings", t["pings"]["acquire"], want["acquire"])
        c.eq("release pings", t["pings"]["release"], 0)
        if "ready_for_query" in want:
            c.eq("ready_for_query", t["ready_for_query"], want["ready_for_query"])
    elif scenario == "hikaricp":
        jars = ["/usr/share/java/HikariCP.jar", "/usr/share/java/postgresql.jar",
                "/usr/share/java/slf4j-api.jar", "/usr/share/java/slf4j-nop.jar"]
        subprocess.run(["javac", "-d", tmp, "-cp", jars[0],
                        os.path.join(src, "tests/clients/HikariPing.java")], check=True)
        n = 10
        want = kv(capture(pcap, ["java", "-Dcom.zaxxer.hikari.aliveBypassWindowMs=0", "-cp",
                                 ":".join([tmp] + jars), "HikariPing",
                                 f"jdbc:postgresql://127.0.0.1:{PORT}/postgres?user=postgres&sslmode=disable",
                                 str(n)]))
        d = pgrtt_json(pgrtt, pcap)
        t = d["totals"]
        # one isValid per checkout, and one when the pool checks the driver on its first connection
        c.eq("pings (isValid: an empty query)", t["by_class"]["ping"], want["checkouts"] + 1)
        c.eq("acquire pings", t["pings"]["acquire"], want["checkouts"] + 1)
        c.eq("empty-query signature", t["pings"]["signatures"]["empty_query"], want["checkouts"] + 1)
        c.eq("driver", d["connections"][0]["driver"], "pgjdbc")
    elif scenario.startswith("web-"):
        # the blog app in one pool set-up; sequential pages must be attributed
        # exactly, 8 concurrent clients on one route within 2%
        parts = scenario.split("-")
        pool, mode = "-".join(parts[1:-1]), parts[-1]
        http_port = os.environ.get("PGRTT_WEBPORT", "18081")
        app = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "tests/clients/webapp.py"),
                                CI, http_port, pool], stdout=subprocess.PIPE, text=True)
        assert app.stdout.readline().strip() == "ready"
        try:
            per_page = {"noping": 3, "ping-query": 6, "ping-page": 4}[pool]
            pings = {"noping": 0, "ping-query": 3, "ping-page": 1}[pool]
            if mode == "seq":
                load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port,
                        "1", "40", "/articles/1", "/articles/2", "/"]
            elif mode == "mixed":  # enough pages for the estimate (docs/pages.md)
                load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port,
                        "8", "150", "/articles/3", "/"]
            elif mode == "mixed50":  # 50 clients: the pool's 16 connections all busy
                load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port,
                        "50", "24", "/articles/3", "/"]
            elif mode == "status":  # pgrtt capture on a terminal while pages come one by one
                load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port,
                        "1", "400", "/articles/1"]
                ts = os.path.join(tmp, "typescript")
                tty = subprocess.Popen(["script", "-qec", f"{pgrtt} capture -i lo -p {PORT} "
                                        f"--http-port {http_port} --duration 4", ts],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
                time.sleep(1)
                subprocess.run(load, capture_output=True, timeout=60)
                tty.wait(timeout=60)
                lines = open(ts, errors="replace", newline="").read().split("\r\x1b[K")
                status = [l for l in lines if "rfq/s" in l]
                c.eq("a terminal: a status line a second", len(status) >= 2, True)
                shown = [m.groups() for l in status for m in
                         [re.search(r"([0-9.]+)([kM]?) pings/s .*GET /articles/\{id\} (~?)([0-9.]+) "
                                    r"rt/page", l)] if m]
                c.eq("the status line: pings per second, the busiest route's round trips per "
                     "page", bool(shown), True)
                if shown:
                    rate, k, approx, per = shown[-1]
                    c.eq("pings per second, as they come", float(rate) > 0, True)
                    c.eq(f"the detail route's {per_page} round trips per page, exact so far",
                         (approx, float(per)), ("", float(per_page)))
                return 1 if c.failed else 0
            else:
                load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port,
                        "8", "50", "/articles/3"]
            out = capture(pcap, load, extra_port=http_port)
        finally:
            app.terminate()
            app.wait()
        want = {k: int(v) for k, v in re.findall(r"(\S+)=(\d+)", out)}
        d = pgrtt_json(pgrtt, pcap, ["--http-port", http_port])
        routes = {r["route"]: r for r in d["routes"]}
        if mode in ("mixed", "mixed50"):
            # two routes at once, 8 clients: every page overlaps pages of the
            # other route, and each route's figure is estimated (issue 12)
            index_rt = {"noping": 1, "ping-query": 2, "ping-page": 2}[pool]
            n_detail, n_index = want["/articles/3"], want["/"]
            c.eq("pages", sum(r["pages"] for r in d["routes"]), n_detail + n_index)
            for route, known, n in (("GET /articles/{id}", per_page, n_detail),
                                    ("GET /", index_rt, n_index)):
                r = routes[route]
                got = r["round_trips_per_page"]["mean"]
                lo, hi = r["round_trips_per_page"]["interval95"]
                # within 5%; or, when the estimate is unsure (this app's pages
                # stay open ~40 ms after their queries, Nagle: 2 of 18 runs
                # read 5-15% off), an interval that says so: it holds the
                # truth and is no wider than 25% of the figure
                c.eq(f"{route}: round trips per page within 5% of {known} (got {got:.3f}, 95% "
                     f"{lo:.2f}-{hi:.2f}), or an interval that holds it",
                     abs(got - known) <= 0.05 * known
                     or (lo <= known <= hi and hi - lo <= 0.5 * got), True)
                c.eq(f"{route}: every page behind the figure", r["pages"], n)
                c.eq(f"{route}: estimated", "estimated" in r["attribution"], True)
            c.eq("ready_for_query = tshark", d["totals"]["ready_for_query"], tshark_rfq(pcap))
            return 1 if c.failed else 0
        detail = routes["GET /articles/{id}"]
        c.eq("detail pages", detail["pages"], sum(v for k, v in want.items() if k.startswith("/articles/")))
        if mode == "seq":
            c.eq("attribution", detail["attribution"], "exact")
            c.eq("round trips per detail page (min)", detail["round_trips_per_page"]["min"], per_page)
            c.eq("round trips per detail page (max)", detail["round_trips_per_page"]["max"], per_page)
            c.eq("acquire pings per detail page", detail["by_class_per_page"]["ping_acquire"], pings)
            index = routes["GET /"]
            c.eq("index pages", index["pages"], want["/"])
            c.eq("round trips per index page", index["round_trips_per_page"]["mean"],
                 {"noping": 1, "ping-query": 2, "ping-page": 2}[pool])
        else:
            got = detail["round_trips_per_page"]["mean"]
            c.eq(f"round trips per page within 2% of {per_page} (got {got:.3f})",
                 abs(got - per_page) <= 0.02 * per_page, True)
    elif scenario.startswith("capture-"):
        # pgrtt capture itself on lo while pgbench runs a fixed number of
        # transactions: its counts must equal pgbench's and analyze's on -w
        kind = scenario.split("-", 1)[1]
        subprocess.run(["pgbench", "-i", "-s", "1", "-q"], env=ENV, capture_output=True)
        script = os.path.join(tmp, "pb.sql")
        open(script, "w").write(PGBENCH_SCRIPT)
        wfile, db, out = (os.path.join(tmp, n) for n in ("w.pcap", "c.db", "c.json"))
        if kind == "tls":
            # a TLS pool already connected when the capture starts (libpq's
            # sslmode=prefer against ssl=on does this): encrypted, not zero
            pb = subprocess.Popen(["pgbench", "-n", "-S", "-c", "4", "-j", "2", "-R", "300", "-T", "6"],
                                  env=dict(ENV, PGSSLMODE="require"), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            time.sleep(2)
            p = subprocess.run([pgrtt, "capture", "-i", "lo", "-p", PORT, "--duration", "2",
                                "--no-status", "-F", "json", "--db", db, "-w", wfile],
                               capture_output=True, text=True)
            pb.communicate()
            d = json.loads(p.stdout)
            c.eq("TLS pool mid-stream: encrypted connections", (d["totals"]["tls"],
                 d["totals"]["mid_stream"]), (4, 4))
            c.eq("TLS pool mid-stream: findings", [w["code"] for w in d["warnings"]],
                 ["no-round-trips", "encrypted"])
            c.eq("TLS pool mid-stream: tshark sees 4 TLS connections", tshark_tls(wfile), 4)
            p = subprocess.run([pgrtt, "audit", "--db", db, "--forbid", "ping"], capture_output=True,
                               text=True)
            c.eq("TLS pool mid-stream: the gate does not pass", p.returncode, 2)
            return 1 if c.failed else 0
        if kind == "rotate":
            # a run every 2 s while pgbench goes on: every ReadyForQuery in
            # exactly one run, the runs back to back, the later ones picking
            # pgbench's connections up mid-stream
            cap = subprocess.Popen([pgrtt, "capture", "-i", "lo", "-p", PORT, "--rotate", "2s",
                                    "--duration", "7", "--db", db, "-w", wfile, "--no-progress",
                                    "-F", "json", "-o", out], stderr=subprocess.PIPE, text=True)
            time.sleep(0.7)
            pb = subprocess.run(["pgbench", "-n", "-S", "-c", "4", "-j", "2", "-R", "2000", "-T", "5"], env=ENV,
                                capture_output=True, text=True)
            _, err = cap.communicate(timeout=60)
            c.eq("rotate: exit 0", cap.returncode, 0)
            q = sqlite3.connect(db)
            runs = q.execute("SELECT id, ready_for_query, unanswered, mid_stream, first_ts, last_ts"
                             " FROM runs ORDER BY id").fetchall()
            c.eq("rotate: a run stored every 2 s (7 s: 4 runs; 3 when a period stretches, as "
                 "under the sanitizers)", 3 <= len(runs) <= 4, True)
            c.eq("rotate: each rotation said on stderr", err.count("(--rotate)"), len(runs) - 1)
            whole = pgrtt_json(pgrtt, wfile)["totals"]["ready_for_query"]
            c.eq("rotate: every ReadyForQuery in one run (the runs' sum = the -w file's)",
                 sum(r[1] for r in runs), whole)
            c.eq("rotate: ... and tshark's count of them in the -w file",
                 sum(r[1] for r in runs), tshark_rfq(wfile))
            c.eq("rotate: the -w file holds pgbench's transactions (and its startups)",
                 whole >= int(re.search(r"actually processed: (\d+)", pb.stdout).group(1)), True)
            busy = [r for r in runs if r[1] > 0]
            c.eq("rotate: the runs after the first pick pgbench's 4 connections up mid-stream",
                 [r[3] for r in busy[1:]], [4] * (len(busy) - 1))
            c.eq("rotate: back to back in time",
                 all(runs[i][5] <= runs[i + 1][4] for i in range(len(runs) - 1) if runs[i + 1][4]),
                 True)
            unknown = sum(n for (n,) in q.execute(
                "SELECT round_trips FROM run_classes WHERE class = 'unknown'"))
            c.eq("rotate: a round trip cut by a rotation is unanswered in one run, unknown in the "
                 "next: at most one per connection and rotation",
                 unknown <= 4 * 3 and sum(r[2] for r in runs) <= 4 * 3, True)
            return 1 if c.failed else 0
        if kind == "rotate-routes":
            # routes' parameters learnt in one period stay learnt in the next
            # (route_learn.h): 20 tags named by words in the first period, 3
            # in each later one - too few to learn the segment again, so
            # without the hand-over each later run stored a route per tag
            http_port = os.environ.get("PGRTT_WEBPORT", "18081")
            app = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "tests/clients/webapp.py"),
                                    CI, http_port, "ping-page"], stdout=subprocess.PIPE, text=True)
            assert app.stdout.readline().strip() == "ready"
            words = ("rust go postgres python java linux docker redis nginx sqlite kernel "
                     "compiler database server client cache socket index thread async").split()
            load = ["/usr/bin/python3", os.path.join(src, "tests/clients/load.py"), http_port, "4"]
            try:
                t0 = time.monotonic()
                cap = subprocess.Popen([pgrtt, "capture", "-i", "lo", "-p", PORT, "--http-port",
                                        http_port, "--rotate", "2s", "--duration", "7", "--db", db,
                                        "--no-progress", "-F", "json", "-o", out],
                                       stderr=subprocess.PIPE, text=True)
                time.sleep(0.7)
                subprocess.run(load + ["20"] + [f"/tags/{w}" for w in words] + ["/"], check=True,
                               capture_output=True, timeout=60)
                for at in (3.0, 5.0):  # in the second period, in the third
                    time.sleep(max(0.0, at - (time.monotonic() - t0)))
                    subprocess.run(load + ["10", "/tags/rust", "/", "/tags/go", "/tags/java"],
                                   check=True, capture_output=True, timeout=60)
                _, err = cap.communicate(timeout=60)
            finally:
                app.terminate()
                app.wait()
            c.eq("rotate, routes: exit 0", cap.returncode, 0)
            q = sqlite3.connect(db)
            rows = q.execute("SELECT run_id, route, pages FROM routes WHERE route LIKE 'GET /tags/%'"
                             " ORDER BY run_id, route").fetchall()
            runs = sorted({r[0] for r in rows})
            c.eq("rotate, routes: tag pages in three runs or more", len(runs) >= 3, True)
            c.eq("rotate, routes: one tag route in every run, the learnt one",
                 sorted({r[1] for r in rows}), ["GET /tags/{slug}"])
            c.eq("rotate, routes: the later runs' tag pages there (4 clients x 10 pages, 3 in 4 a"
                 " tag's, twice)", sum(r[2] for r in rows if r[0] != runs[0]) >= 2 * 30, True)
            return 1 if c.failed else 0
        if kind == "errors":
            p = subprocess.run([pgrtt, "capture", "-i", "nosuch0", "-p", PORT, "--duration", "1"],
                               capture_output=True, text=True)
            c.eq("bad interface", (p.returncode, "no such interface" in p.stderr), (2, True))
            p = subprocess.run([pgrtt, "capture", "-i", "lo", "-p", PORT, "-f", "tcp prot 1",
                                "--duration", "1"], capture_output=True, text=True)
            c.eq("bad filter", (p.returncode, "bad filter" in p.stderr), (2, True))
            # the wrong port while pgbench runs: said, stored with the run, and the
            # gate on that run fails as "nothing measured" (exit 2), not a pass
            wrong = os.path.join(tmp, "wrong.db")
            cap = subprocess.Popen([pgrtt, "capture", "-i", "lo", "-p", "5999", "--duration", "2",
                                    "--no-status", "--db", wrong], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            subprocess.run(["pgbench", "-n", "-c", "2", "-t", "50", "-f", script], env=ENV,
                           capture_output=True)
            out_w, err_w = cap.communicate(timeout=30)
            c.eq("wrong port: said", (cap.returncode, "[no-postgresql]" in err_w), (0, True))
            p = subprocess.run([pgrtt, "audit", "--db", wrong, "--forbid", "ping"],
                               capture_output=True, text=True)
            c.eq("wrong port: the gate does not pass", (p.returncode, "no-postgresql" in p.stdout),
                 (2, True))
            # a copy nobody can reach, wherever the build tree is
            os.chmod(tmp, 0o755)
            mine = os.path.join(tmp, "pgrtt")
            shutil.copy(pgrtt, mine)
            os.chmod(mine, 0o755)
            p = subprocess.run(["su", "nobody", "-s", "/bin/sh", "-c",
                                f"{mine} capture -i lo -p {PORT} --duration 1"],
                               capture_output=True, text=True)
            c.eq("without permission", (p.returncode, "needs root or CAP_NET_RAW" in p.stderr),
                 (2, True))
            # -Z: the handle and -w file are opened as root, the rest runs as nobody
            p = subprocess.run([pgrtt, "capture", "-i", "lo", "-p", PORT, "-Z", "nobody",
                                "--duration", "1", "--no-status", "-w", wfile],
                               capture_output=True, text=True)
            c.eq("-Z nobody", (p.returncode, os.path.getsize(wfile) >= 24), (0, True))
            # -o and -w are opened before the drop, in a directory only root may
            # write; the -w file becomes nobody's (as tcpdump does)
            private = os.path.join(tmp, "private")
            os.mkdir(private, 0o700)
            rep, w2 = os.path.join(private, "r.json"), os.path.join(private, "w.pcap")
            p = subprocess.run([pgrtt, "capture", "-i", "lo", "-p", PORT, "-Z", "nobody",
                                "--duration", "1", "--no-status", "-F", "json", "-o", rep,
                                "-w", w2], capture_output=True, text=True)
            c.eq("-Z nobody -o: report written", (p.returncode, os.path.exists(rep) and
                 "totals" in json.load(open(rep))), (0, True))
            import pwd
            c.eq("-Z nobody -w: owned by nobody", os.stat(w2).st_uid, pwd.getpwnam("nobody").pw_uid)
            # -w that cannot be written: a file size limit (a full disk's EFBIG),
            # a pipe closed by its reader - said, the capture stopped, exit 2
            import resource
            full = os.path.join(tmp, "full.pcap")
            cap = subprocess.Popen([pgrtt, "capture", "-i", "lo", "-p", PORT, "--duration", "5",
                                    "--no-status", "-w", full, "-o", os.devnull], stderr=subprocess.PIPE,
                                   text=True, preexec_fn=lambda: resource.setrlimit(
                                       resource.RLIMIT_FSIZE, (65536, 65536)))
            time.sleep(1)
            subprocess.run(["pgbench", "-n", "-c", "2", "-t", "2000", "-f", script], env=ENV,
                           capture_output=True)
            _, err_f = cap.communicate(timeout=30)
            c.eq("-w past a file size limit: said, exit 2",
                 (cap.returncode, f"-w {full}: File too large" in err_f, os.path.getsize(full)),
                 (2, True, 65536))
            cap = subprocess.Popen(f"{pgrtt} capture -i lo -p {PORT} --duration 5 --no-status -w - "
                                   f"-o /dev/null | head -c 100 >/dev/null; echo $" + "{PIPESTATUS[0]}",
                                   shell=True, executable="/bin/bash", stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            time.sleep(1)
            subprocess.run(["pgbench", "-n", "-c", "2", "-t", "200", "-f", script], env=ENV,
                           capture_output=True)
            out_h, err_h = cap.communicate(timeout=30)
            c.eq("-w - into head -c 100: said, exit 2", (out_h.strip(), "-w -: Broken pipe" in err_h),
                 ("2", True))
            return 1 if c.failed else 0
        argv = [pgrtt, "capture", "-i", "lo", "-p", PORT, "-w", wfile, "-F", "json", "-o", out,
                "--db", db, "--app", "pgbench", "--no-status"]
        if kind == "duration":
            argv += ["--duration", "5"]
        if kind == "count":
            argv += ["--count", "300"]
        if kind == "sigpipe":  # the report goes to a pipe nobody reads any more
            argv = [a for a in argv if a not in ("-o", out)]
        t0 = time.time()
        cap = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True,
                               stdout=subprocess.PIPE if kind == "sigpipe" else None)
        if kind == "sigpipe":
            cap.stdout.close()
        time.sleep(1)  # listening
        pb = subprocess.run(["pgbench", "-n", "-c", "4", "-j", "2", "-t", "100", "-f", script],
                            env=ENV, capture_output=True, text=True)
        tx = int(re.search(r"actually processed: (\d+)", pb.stdout).group(1))
        if kind == "sigusr1":  # the counts so far, and the capture goes on
            cap.send_signal(signal.SIGUSR1)
            time.sleep(0.5)
        if kind in ("sigint", "sigterm", "sighup", "sigusr1", "sigpipe"):
            time.sleep(0.5)
            cap.send_signal({"sigterm": signal.SIGTERM, "sighup": signal.SIGHUP}.get(
                kind, signal.SIGINT))
        rc = cap.wait(timeout=60)
        elapsed = time.time() - t0
        err = cap.stderr.read()
        if kind == "sigusr1":
            c.eq("SIGUSR1: counts on stderr", bool(re.search(r"\d+ packets, 0 dropped", err)), True)
        if kind == "sigpipe":
            # the write fails (exit 2, said on stderr); the run is stored all the same
            c.eq("closed pipe: write error, not a signal death",
                 (rc, "write failed" in err), (2, True))
            got = subprocess.run(["sqlite3", db, "SELECT count(*), min(round_trips) > 0 FROM runs"],
                                 capture_output=True, text=True).stdout.strip()
            c.eq("closed pipe: run stored", got, "1|1")
            c.eq("closed pipe: -w file complete", pgrtt_json(pgrtt, wfile)["totals"]["by_class"]["query"],
                 2 * tx)
            return 1 if c.failed else 0
        c.eq("exit status", rc, 0)
        d = json.load(open(out))
        if kind == "count":
            c.eq("packets", d["input"]["packets"]["total"], 300)
            c.eq("the -w file holds them", subprocess.run(
                ["capinfos", "-c", "-M", wfile], capture_output=True, text=True).stdout.count(" 300"), 1)
        else:
            c.eq("query round trips = pgbench transactions x 2", d["totals"]["by_class"]["query"], 2 * tx)
            c.eq("drops", d["drops"]["dropped"] + d["drops"]["interface_dropped"], 0)
        if kind == "duration":
            c.eq(f"stopped on time ({elapsed:.1f} s)", 5 <= elapsed < 8, True)
        f = pgrtt_json(pgrtt, wfile)
        for k in ("ready_for_query", "round_trips"):
            c.eq(f"{k}: live = analyze on the -w file", d["totals"][k], f["totals"][k])
        got = subprocess.run(["sqlite3", db, "SELECT count(*), max(round_trips), max(drops) FROM runs"],
                             capture_output=True, text=True).stdout.strip()
        c.eq("stored run", got, f"1|{d['totals']['round_trips']}|0")
        return 1 if c.failed else 0
    elif scenario == "psql-mixed":
        capture(pcap, ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=0", "-f",
                       os.path.join(src, "tests/clients/psql-mixed.sql")])
        t = pgrtt_json(pgrtt, pcap)["totals"]
        c.eq("Query messages (statements in the script)", t["frontend"]["Q"], 15)
        c.eq("ready_for_query", t["ready_for_query"], 16)
        c.eq("errors", t["errors"], 2)
        c.eq("notifications", t["notifications"], 2)
        c.eq("copy round trips", t["by_class"]["copy"], 2)
    elif scenario == "ssl":
        capture(pcap, ["psql", "-X", "-qAt", "-c", "SELECT 1"], env=dict(ENV, PGSSLMODE="require"))
        d = pgrtt_json(pgrtt, pcap)
        c.eq("encrypted connections", d["totals"]["tls"], 1)
        c.eq("tls", d["connections"][0]["tls"], "ssl")
    elif scenario == "scram":
        capture(pcap, ["psql", "-X", "-qAt", "-c", "SELECT current_user"],
                env=dict(ENV, PGUSER="pgrtt_scram", PGPASSWORD="s3cret-pw"))
        d = pgrtt_json(pgrtt, pcap)
        c.eq("ready_for_query", d["totals"]["ready_for_query"], 2)
        dump = subprocess.run([pgrtt, "dump", "-p", PORT, pcap], capture_output=True,
                              text=True).stdout
        json_text = json.dumps(d)
        for secret in ("s3cret-pw", "n,,n=", "c=biws", "SCRAM-SHA-256,"):
            c.eq(f"{secret!r} absent from dump and JSON", secret in dump or secret in json_text, False)
        c.eq("SASL messages shown without contents", dump.count("not shown"), 4)
    elif scenario == "ipv6":
        capture(pcap, ["psql", "-X", "-qAt", "-h", "::1", "-c", "SELECT 1 + 1"])
        d = pgrtt_json(pgrtt, pcap)
        c.eq("server address", d["connections"][0]["server"], f"[::1]:{PORT}")
        c.eq("ready_for_query", d["totals"]["ready_for_query"], 2)
    else:
        print(f"unknown scenario {scenario}")
        return 1

    c.eq("ready_for_query = tshark", pgrtt_json(pgrtt, pcap)["totals"]["ready_for_query"],
         tshark_rfq(pcap))
    return 1 if c.failed else 0


TMP = None

if __name__ == "__main__":
    rc = main()
    if TMP and rc == 0 and not os.environ.get("PGRTT_KEEP"):  # PGRTT_KEEP=1: a corpus
        shutil.rmtree(TMP, ignore_errors=True)
    elif TMP:
        print(f"captures kept in {TMP}")
    sys.exit(rc)
