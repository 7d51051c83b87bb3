#!/usr/bin/python3
"""real_mixed_test.py PGRTT BLOGLOAD SRCDIR [--recheck DIR] - real drivers and pools under
mixed load (issue 12): the benchmark's apps (bench/apps) - SQLAlchemy's
QueuePool over psycopg2 (SELECT 1, BEGIN, the page's statements,
ROLLBACK), r2d2 over tokio-postgres (an empty-query test, a prepare per
statement, a Close sent with the next checkout's test), pgx's pgxpool,
HikariCP over pgjdbc (no ping, nothing between checkouts), node-postgres's
Pool - each serving three routes at once to 8 clients, on the seed's
dataset.  Every page overlaps pages of the other routes, so every route's
figure is estimated;
it is checked against the same app's exact figure, one page at a time, in
the same run: per class of round trip, within 5%, or with an interval that
holds it and is no wider than 25% of the figure (as the other mixed-load
tests).  Left out: r2d2's pings and Closes, HikariCP's pings
(TIMED_CLASSES): their counts depend on time, not on the page; r2d2's
Closes under load must be alike per page across the routes instead.
Needs the test cluster (PGRTT_PGPORT); builds the apps into the bench
test's cache (PGRTT_BENCH_BUILD).  --recheck DIR judges the captures a
failed run kept in DIR again (PGRTT_PGPORT: the port they were made on)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, failures, finish, same_on_one_thread, skip  # noqa: E402
from livelib import blog_database, capture, free_port  # noqa: E402

PGRTT, BLOGLOAD, SRC = (os.path.abspath(a) for a in sys.argv[1:4])  # apps run in their dirs
PORT = os.environ.get("PGRTT_PGPORT")
HTTP = "18095"
BUILD = os.environ.get("PGRTT_BENCH_BUILD", os.path.join(os.path.dirname(PGRTT), "bench-build"))
APPS = tuple(os.environ.get("PGRTT_REAL_MIXED_APPS",  # a subset, by hand
                            "py-sqlalchemy,rust-r2d2,go-pgx,java-hikari,node-pg").split(","))
PATHS = ["/articles/3", "/", "/tags/tag-7", "/articles/11"]
ROUTES = ("GET /articles/{id}", "GET /", "GET /tags/{slug}")
# what every app runs per page (bench/queries.h): the truth the exact pages
# are checked against before they are the estimate's
STATEMENTS = {"GET /articles/{id}": 3, "GET /": 3, "GET /tags/{slug}": 4}
# classes whose count depends on time, not on the page: r2d2's test shares
# a flight with the last checkout's Close, sooner or later (a CI run: 0.92
# Close round trips per tag page one at a time, 1.01 under load);
# HikariCP validates a connection idle over 500 ms (aliveBypassWindowMs) -
# one page at a time some are (a CI run: 0.2 per detail page), under load
# none; those classes of one run are no truth for the other's
TIMED_CLASSES = {"rust-r2d2": ("ping", "close"), "java-hikari": ("ping",)}


def get(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP}{path}", timeout=10) as r:
        return r.status, r.read()


def analyze(pcap):
    argv = [PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json", "--no-progress", pcap]
    p = subprocess.run(argv, capture_output=True, text=True)
    same_on_one_thread(argv, p.stdout)
    return json.loads(p.stdout)


def load(conc, n):
    return subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"),
                           HTTP, str(conc), str(n)] + PATHS, check=True, capture_output=True)


def judge(name, seq, mixed, d=None):
    """The checks on an app's two captures: one page at a time (exact) and
    three routes at once (estimated, against the exact figures; d: the
    latter's analysis, if made already)."""
    exact = {r["route"]: r for r in analyze(seq)["routes"]}
    check(f"{name}: one page at a time, every route exact",
          [exact.get(r, {}).get("attribution") for r in ROUTES], ["exact"] * 3)
    check(f"{name}: one page at a time, the statements each route runs",
          {r: exact.get(r, {}).get("by_class_per_page", {}).get("query") for r in ROUTES},
          STATEMENTS)
    d = d or analyze(mixed)
    check(f"{name}: three routes at once, a capture without gaps",
          (d["totals"]["gaps"], d["http"]["gaps"]), (0, 0))
    got = {r["route"]: r for r in d["routes"]}
    check(f"{name}: three routes at once, every page behind the figures",
          sum(got[r]["pages"] for r in ROUTES if r in got), 8 * 150)
    for route in ROUTES:
        x, want = got.get(route), exact.get(route)
        if not x or not want:
            check(f"{name}: {route} measured", None, "figures")
            continue
        check(f"{name}: {route} estimated", "estimated" in x["attribution"], True)
        rt = x["round_trips_per_page"]
        lo, hi = rt["interval95"]
        for cls, w in want["by_class_per_page"].items():
            if not w or cls == "startup" or cls.startswith(TIMED_CLASSES.get(name, ("-",))):
                continue
            g = x["by_class_per_page"].get(cls, 0)
            # a class's interval: the route's, less the other classes
            rest = rt["mean"] - g
            near = abs(g - w) <= max(0.05 * w, 0.02)
            held = lo - rest <= w <= hi - rest and hi - lo <= 0.5 * rt["mean"]
            check(f"{name}: {route} {cls} per page within 5% of {w:.2f} (got {g:.2f}, route"
                  f" 95% {lo:.2f}-{hi:.2f}), or an interval that holds it", near or held, True)
    if name == "rust-r2d2":
        # each page closes its last statement in a flight of its own, or
        # with the next checkout's test, whatever its route: alike per page
        # under the same load (by class alone, after the page's answer,
        # they read 0.73 / 0.53 / 2.67)
        closes = [got[r]["by_class_per_page"].get("close", 0) for r in ROUTES if r in got]
        mean = sum(closes) / len(closes) if closes else 0
        check(f"{name}: three routes at once, Closes per page alike across routes ({closes})",
              bool(closes) and mean > 0.5 and all(abs(c - mean) <= 0.1 * mean for c in closes),
              True)


def run_app(name, man, env, tmp):
    build = os.path.join(BUILD, name)
    appdir = os.path.join(SRC, "bench", "apps", name)

    def expand(s):
        return s.replace("$APP", appdir).replace("$BUILD", build)
    env = dict(env, **{k: expand(v) for k, v in man.get("env", {}).items()})
    log = open(os.path.join(tmp, f"{name}.log"), "w")
    app = subprocess.Popen([expand(a) for a in man["run"]], env=env, cwd=appdir, stdout=log,
                           stderr=log, start_new_session=True)
    try:
        up = False
        for _ in range(int(man.get("start_timeout", 20)) * 10):
            try:
                up = get("/")[0] == 200
                break
            except OSError:
                time.sleep(0.1)
        check(f"{name}: serves", up, True)
        if not up:
            return
        load(8, 20)  # warm up: the pool grows to what 8 clients need
        seq = os.path.join(tmp, f"{name}-seq.pcap")
        capture(seq, (PORT, HTTP), lambda: [get(p) for p in PATHS * 10])
        mixed = os.path.join(tmp, f"{name}-mixed.pcap")
        for attempt in range(3):
            capture(mixed, (PORT, HTTP), lambda: load(8, 150))
            d = analyze(mixed)
            if not d["totals"]["gaps"] and not d["http"]["gaps"]:
                break
            print(f"note {name}: the capture lost packets: captured again", flush=True)
        judge(name, seq, mixed, d)
    finally:
        os.killpg(app.pid, signal.SIGTERM)
        try:
            app.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(app.pid, signal.SIGKILL)
            app.wait()
        log.close()


def main():
    if not PORT:
        skip("no test cluster (PGRTT_PGPORT unset)")
    if len(sys.argv) > 5 and sys.argv[4] == "--recheck":  # a kept run's captures, judged again
        for name in APPS:
            seq, mixed = (os.path.join(sys.argv[5], f"{name}-{k}.pcap") for k in ("seq", "mixed"))
            if os.path.exists(seq) and os.path.exists(mixed):
                judge(name, seq, mixed)
        return 1 if failures else 0
    tmp = tempfile.mkdtemp(prefix="pgrtt-realmixed-")
    out = os.path.join(tmp, "out")
    b = subprocess.run([PGRTT, "bench", "--build-only", "--no-progress", "--apps", ",".join(APPS),
                        "--build-dir", BUILD, "--out", out], capture_output=True, text=True)
    check("the apps build", b.returncode, 0)
    if b.returncode:
        print(b.stderr)
        return 1
    dsn = blog_database(PORT, "blogmix", BLOGLOAD)
    check("the seed's dataset", dsn is not None, True)
    redis_port = free_port()
    redis = None
    if shutil.which("redis-server"):  # the apps' page cache (routes not under test)
        redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    app_env = dict(os.environ, PORT=HTTP, POOL_MAX="16", POOL_MIN="4",
                   DATABASE_URL=f"postgresql://postgres@127.0.0.1:{PORT}/blogmix?sslmode=disable",
                   REDIS_URL=f"redis://127.0.0.1:{redis_port}",
                   QUERIES=os.path.join(os.path.realpath(out), "queries.json"))
    try:
        for name in APPS:
            with open(os.path.join(SRC, "bench", "apps", name, "manifest.json")) as f:
                run_app(name, json.load(f), app_env, tmp)
    finally:
        if redis:
            redis.terminate()
            redis.wait()
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
