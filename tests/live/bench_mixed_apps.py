#!/usr/bin/python3
"""bench_mixed_apps.py [--conns N] [--seconds S] [APP...] - the benchmark's
apps (bench/apps) under mixed load, for docs/pages.md's error table: each
route alone (8 clients, 2 s: its pages exact, the truth), then the three
routes at once under wrk with N connections (default 50) for S seconds
(default 5), each request's path at random and in wrk's fixed cycle.
Prints each route's round trips per page, 95% interval and attribution
against the truth, and the notes pgrtt gave.

Apps: c-libpq (POOL_MODE from the environment, default pgx), go-pgx,
node-pg, java-hikari, py-sqlalchemy (default: all of them), started as
their manifests say.  Builds them with `pgrtt bench --build-only` first
(c-libpq as c-pgx); starts a throwaway cluster
(tests/pg_cluster.sh, port 55434) with the seed's dataset, and stops it.
Run as root (tcpdump) from the source tree after building build/.  Not a
test: a measurement, by hand."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "tests", "live"), os.path.join(ROOT, "tests")]
from livelib import blog_database, capture as tcpdump_around  # noqa: E402
PGRTT = os.path.join(ROOT, "build", "pgrtt")
PG, HTTP = "55434", "18095"
BUILD = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                     "pgrtt", "bench")
PATHS = {"GET /articles/{id}": ["/articles/3", "/articles/11", "/articles/500"],
         "GET /": ["/"], "GET /tags/{slug}": ["/tags/tag-7"]}
APPS = ("c-libpq", "go-pgx", "node-pg", "java-hikari", "py-sqlalchemy")


def launch(app):
    """An app's command and environment from its manifest, as pgrtt bench
    starts it ($APP its sources, $BUILD where the harness built it)."""
    with open(os.path.join(ROOT, "bench", "apps", app, "manifest.json")) as f:
        m = json.load(f)
    where = {"$APP": os.path.join(ROOT, "bench", "apps", app), "$BUILD": os.path.join(BUILD, app)}

    def expand(v):
        for k, x in where.items():
            v = v.replace(k, x)
        return v
    return [expand(a) for a in m["run"]], {k: expand(v) for k, v in m.get("env", {}).items()}


def lua(work, paths, random):
    f = os.path.join(work, "paths.lua")
    pick = "i = math.random(#paths)" if random else ""
    with open(f, "w") as out:
        out.write("local paths = {%s}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  %s\n"
                  "  return wrk.format('GET', paths[i %% #paths + 1])\nend\n"
                  % (",".join('"%s"' % p for p in paths), pick))
    return f


def capture(work, name, paths, conns, secs, random):
    pcap = os.path.join(work, name + ".pcap")
    # tcpdump buffering, not writing each packet: the load takes every CPU
    tcpdump_around(pcap, [PG, HTTP], lambda: subprocess.run(
        ["wrk", "-t", "2", "-c", str(conns), "-d", str(secs), "-s", lua(work, paths, random),
         f"http://127.0.0.1:{HTTP}"], stdout=subprocess.DEVNULL, check=True), immediate=False)
    with open(pcap + ".err") as e:  # a capture that lost packets is said, not used quietly
        drops = re.search(r"(\d+) packets? dropped by kernel", e.read())
    if drops and int(drops.group(1)):
        print(f"  {name}: tcpdump dropped {drops.group(1)} packets", flush=True)
    out = subprocess.run([PGRTT, "analyze", "--no-progress", "-p", PG, "--http-port", HTTP,
                          "-F", "json", pcap], capture_output=True, text=True).stdout
    d = json.loads(out)
    return {r["route"]: r for r in d["routes"]}, d


def figure(x):
    m = x.get("round_trips_per_page") or {}
    iv = m.get("interval95") or []
    s = f"{m.get('mean', 0):.2f}"
    if len(iv) == 2 and iv[0] is not None:
        s += f" ({iv[0]:.2f}-{iv[1]:.2f})"
    return s + " " + x.get("attribution", "-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conns", type=int, default=50)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("apps", nargs="*", default=list(APPS))
    o = ap.parse_args()
    for app in o.apps:
        if app not in APPS:
            sys.exit(f"bench_mixed_apps.py: {app}: not one of {', '.join(APPS)}")
    work = tempfile.mkdtemp(prefix="pgrtt-mixedapps.")
    os.chmod(work, 0o755)  # the cluster inside runs as postgres
    cluster = os.path.join(work, "pg")
    subprocess.run([PGRTT, "bench", "--build-only", "--no-progress", "--out",
                    os.path.join(work, "out"),
                    "--apps", ",".join("c-pgx" if a == "c-libpq" else a for a in o.apps)],
                   check=True, stdout=subprocess.DEVNULL)  # c-pgx: the C app's build
    queries = os.path.join(work, "out", "queries.json")
    subprocess.run([os.path.join(ROOT, "tests", "pg_cluster.sh"), "start", cluster, PG],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        if not blog_database(PG, "pgrtt_bench", os.path.join(ROOT, "build", "bench", "blogload")):
            sys.exit("bench_mixed_apps.py: the seed's dataset did not load")
        for app in o.apps:
            run_app(o, work, app, queries)
    finally:
        subprocess.run([os.path.join(ROOT, "tests", "pg_cluster.sh"), "stop", cluster, PG],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


def run_app(o, work, app, queries):
    argv, extra = launch(app)
    env = dict(os.environ, PORT=HTTP, POOL_MAX="16", POOL_MIN="4", QUERIES=queries,
               DATABASE_URL=f"postgresql://postgres@127.0.0.1:{PG}/pgrtt_bench?sslmode=disable",
               **extra)
    if app == "c-libpq":
        env.setdefault("POOL_MODE", "pgx")
    with open(os.path.join(work, app + ".log"), "w") as log:
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{HTTP}/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            with open(os.path.join(work, app + ".log")) as log:
                sys.exit(f"bench_mixed_apps.py: {app} did not answer; its log:\n{log.read()}")
        every = sum(PATHS.values(), [])
        subprocess.run(["wrk", "-t", "2", "-c", str(o.conns), "-d", "2", "-s",
                        lua(work, every, True), f"http://127.0.0.1:{HTTP}"],
                       stdout=subprocess.DEVNULL, check=True)  # the pool grows
        truth = []
        for route, paths in PATHS.items():
            r, _ = capture(work, app + "-alone", paths, 8, 2, False)
            m = (r.get(route) or {}).get("round_trips_per_page") or {}
            truth.append(f"{m['mean']:.2f}" if m.get("mean") is not None else "-")
        print(f"{app}: alone (the truth) " + " / ".join(truth) + "  (" + ", ".join(PATHS) + ")")
        for mix, random in (("random", True), ("cycle", False)):
            r, d = capture(work, f"{app}-{mix}", every, o.conns, o.seconds, random)
            notes = ",".join(w.get("code", "") for w in d.get("warnings", []))
            print(f"  {o.conns} clients, {mix}: " +
                  " / ".join(figure(r.get(k, {})) for k in PATHS) +
                  f"  ({sum(x['pages'] for x in r.values())} pages; notes: {notes})", flush=True)
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()
