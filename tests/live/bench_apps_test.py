#!/usr/bin/python3
"""bench_apps_test.py PGRTT BLOGLOAD APP SRCDIR - the benchmark's reference
app (bench/apps/c-libpq) in the five pool patterns of the seed, on the
seed's dataset, under capture: round trips per page must be the seed's
3 / 4 / 5 / 6 / 9 on the detail page, with the acquire/release split each
pattern makes, one page at a time and with 8 clients on one route, with
the pool handing out idle connections oldest first (FIFO, sqlx) and newest
first (LIFO, bb8, HikariCP): a lone Sync between two queries is told
release or acquire by the pool's policy that the capture shows (issue 12).
Every mode must render the same bytes.  Then the three routes at once
with the tags' slugs words ("rust", "open-source": route.c's shapes
cannot tell them from a fixed path): the tag segment learnt for a
parameter (route_learn.h), one tag route with the figures that route
names given by --route give, every figure within 5%.  Last, the two modes
that check out per page with pings, FIFO and LIFO, with a lookup first on
every page (SESSION_LOOKUP=1: the statement every route runs,
check_session_lookup).  Needs the test cluster
(PGRTT_PGPORT)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # livelib here, checklib in tests/
from checklib import check, finish, required, same_on_one_thread, skip  # noqa: E402
from livelib import blog_database, capture  # noqa: E402

PGRTT, BLOGLOAD, APP, SRC = sys.argv[1:5]
PORT = os.environ.get("PGRTT_PGPORT")
HTTP = "18091"

# round trips per page (detail, index, tag), acquire and release pings per
# detail page, and the policy pgrtt must find
MODES = {
    "pgx": ((3, 3, 4), 0, 0, "unknown"),
    "rustango": ((4, 4, 5), 0, 1, "release"),
    "rocket": ((5, 5, 6), 1, 1, "both"),
    "axum-sqlx": ((6, 6, 8), 0, 3, "release"),
    "axum-sqlx-ping": ((9, 9, 12), 3, 3, "both"),
}


def near(got, want, pct=0.05):
    return got is not None and abs(got - want) <= max(pct * abs(want), 0.02)


def check_mixed(mode, pcap, want_rt, want_pings):
    argv = [PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json", "--no-progress", pcap]
    p = subprocess.run(argv, capture_output=True, text=True)
    same_on_one_thread(argv, p.stdout)
    d = json.loads(p.stdout)
    r = {x["route"]: x for x in d["routes"]}
    check(f"{mode}, three routes at once: every page behind the figures",
          sum(x["pages"] for x in d["routes"]), 8 * 150)
    for route, want in zip(("GET /articles/{id}", "GET /", "GET /tags/{slug}"), want_rt):
        x = r.get(route, {})
        bc = x.get("by_class_per_page", {})
        rt = x.get("round_trips_per_page", {})
        got, (lo, hi) = rt.get("mean"), rt.get("interval95", (None, None))
        if got is not None:  # a connection the pool opens under load: not the pattern
            s = bc["startup"]
            got, lo, hi = round(got - s, 3), lo - s, hi - s
        # within 5%; or, where the estimate is unsure, an interval that says
        # so: it holds the truth and is no wider than 25% of the figure (a
        # LIFO pool, 8 clients on 2 vCPUs: a CI run read 9.73 for 9, 95%
        # 8.65-10.09 - a tag page's first query as it starts, beside index
        # pages in flight all the time: docs/pages.md)
        check(f"{mode}, three routes at once: {route} round trips per page within 5% of {want}"
              f" (got {got}{'' if got is None else f', 95% {lo:.2f}-{hi:.2f}'}), or an interval"
              " that holds it",
              near(got, want) or (got is not None and lo <= want <= hi and hi - lo <= 0.5 * got),
              True)
        check(f"{mode}, three routes at once: {route} estimated",
              "estimated" in x.get("attribution", ""), True)
    bc = r["GET /articles/{id}"]["by_class_per_page"]
    got = (round(bc["ping_acquire"], 3), round(bc["ping_release"], 3))
    check(f"{mode}, three routes at once: detail pings (acquire, release) within 5% of "
          f"{want_pings} (got {got})", near(got[0], want_pings[0]) and near(got[1], want_pings[1]),
          True)


# the saturated phase's two orders of wrk's paths: its fixed cycle (an index
# page right before each tag page) and a random choice (no lockstep)
ORDERS = (("cycle", "paths[i % #paths + 1]"), ("random", "paths[math.random(#paths)]"))


def check_saturated(what, pcap, want_rt, wrk_out, cycle):
    """wrk -c16 on a 2-vCPU machine: the pool and the CPU saturated, pages
    mostly waiting, every route's pages in flight at every moment.  cycle:
    wrk's fixed cycle of paths starts a tag page right after every index
    page, so a round trip either could have held is theirs alike and only
    the model's density decides (docs/pages.md): the pair is found in
    lockstep and said, and each figure's interval holds the truth (the
    figures were 0-15% off, 24% under ASan in CI).  cycle false:
    the same paths at random: no pair in lockstep, each figure within 5%,
    and its interval holding the truth or the figure within 1% (a CI run
    read 12.04 (12.03-12.13) for 12)."""
    p = subprocess.run([PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json",
                        "--no-progress", pcap], capture_output=True, text=True)
    d = json.loads(p.stdout)
    r = {x["route"]: x for x in d["routes"]}
    done = int(re.search(r"(\d+) requests in", wrk_out).group(1))
    pages = sum(x["pages"] for x in d["routes"])
    check(f"{what}: pages behind the figures ({pages} of wrk's {done}) >= 90%",
          pages >= 0.9 * done, True)
    # wrk's cycle puts an index page right before each tag page: found, and
    # said; the same paths at random: no pair at all
    locked = ([x["route"] for x in d["routes"] if x.get("lockstep_with")],
              any(w["code"] == "lockstep-routes" for w in d["warnings"]))
    if cycle:
        check(f"{what}: the tag route in lockstep with the index route, and a note",
              ("GET /" in r.get("GET /tags/{slug}", {}).get("lockstep_with", []), locked[1]),
              (True, True))
    else:
        check(f"{what}: no routes in lockstep, no note", locked, ([], False))
    for route, want in zip(("GET /articles/{id}", "GET /", "GET /tags/{slug}"), want_rt):
        x = r.get(route, {})
        rt = x.get("round_trips_per_page", {})
        got, (lo, hi) = rt.get("mean"), rt.get("interval95", (None, None))
        if got is None:
            check(f"{what}: {route} has a figure", None, "a figure")
            continue
        shift = rt.get("model_shift", (None, None))
        # no page runs fewer than none: a shift past the figure (a density
        # that gave the route next to nothing - a CI run's detail route,
        # about 9, shifted by -9.45: every route's pages in flight at every
        # moment, the density alone decides) leaves the low end at 0
        check(f"{what}: {route}'s interval covers the model's shifts {shift}",
              shift[0] is not None and lo - 1e-6 <= max(0.0, got + shift[0]) <= got
              <= got + shift[1] <= hi + 1e-6, True)
        s = x["by_class_per_page"]["startup"]  # a connection the pool opens: not the pattern
        got, lo, hi = got - s, lo - s, hi - s
        held = lo - 1e-6 <= want <= hi + 1e-6
        if cycle:
            # the interval spans what a route in lockstep could have run
            # instead (lockstep, docs/pages.md): before it did, 0-24% off
            # with intervals short of the truth.  Or the figure within 1%, as
            # for the random order below: a CI run's index route read 9.008
            # (9.006-9.397) for 9 - a dozen round trips of 13,000 the
            # checkouts gave it for certain, the session's first binary
            # alike on that capture
            check(f"{what}: {route}'s interval holds {want}, or the figure within 1%"
                  f" (got {got:.3f}, 95% {lo:.3f}-{hi:.3f}; lockstep {rt.get('lockstep')})",
                  held or near(got, want, 0.01), True)
        else:
            check(f"{what}: {route}'s interval not widened by lockstep", rt.get("lockstep"), [0, 0])
            check(f"{what}: {route} within 5% of {want}, and an interval that holds it or within"
                  f" 1% (got {got:.2f}, 95% {lo:.2f}-{hi:.2f})",
                  near(got, want, 0.05) and (held or near(got, want, 0.01)), True)


def damage(pcap):
    p = subprocess.run([PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json",
                        "--no-progress", pcap], capture_output=True, text=True)
    d = json.loads(p.stdout)
    return ", ".join(f"{k} {v}" for k, v in (("gaps", d["totals"]["gaps"]),
                                             ("http gaps", d["http"]["gaps"])) if v)


def load_captured(label, pcap, pages, paths, warm=0):
    """load.py with 8 clients cycling paths, `pages` pages each, under
    capture into pcap (after `warm` pages each uncaptured: the pool grows to
    what 8 clients need, and those connections' startups are not pages'
    round trips).  On a loaded machine tcpdump drops packets now and then:
    pgrtt says so (gaps, lower bounds; tested in the capture tests), and a
    damaged capture is no evidence of the pattern: captured again, up to
    three times.  Returns what is still missing, or ""."""
    load = ["/usr/bin/python3", os.path.join(SRC, "tests", "clients", "load.py"), HTTP, "8"]
    if warm:
        subprocess.run(load + [str(warm)] + paths, check=True, capture_output=True)
    for attempt in range(3):
        capture(pcap, (PORT, HTTP), lambda: subprocess.run(
            load + [str(pages)] + paths, check=True, capture_output=True))
        gaps = damage(pcap)
        if not gaps:
            break
        print(f"note {label}: the capture lost packets ({gaps}): captured again", flush=True)
    return gaps


# the 30 tags' slugs as words: no digit, no shape route.c collapses
WORDS = ("rust go postgres python java linux docker redis nginx sqlite kernel compiler database "
         "server client cache socket index thread async open-source web-dev tls json http "
         "scheduler memory network storage testing").split()


def check_word_slugs(env, tmp):
    """The blog with word slugs, 8 clients on the three routes at once (the
    tag pages over all 30 tags), axum-sqlx-ping: one route GET /tags/{slug}
    whose figures are those of the same capture with --route naming it, the
    note that says so, and every route within 5% of 9 / 9 / 12; without
    learning (--route-values 0), a route per tag."""
    mode = "word slugs, axum-sqlx-ping"
    dsn = blog_database(PORT, "blogwords", BLOGLOAD)
    if not check(f"{mode}: the seed's dataset", dsn is not None, True):
        return
    renamed = subprocess.run(
        ["psql", "-qAt", "-d", "blogwords", "-c",
         "WITH u AS (UPDATE tags SET slug = (string_to_array(%s, ' '))[id] RETURNING 1)"
         " SELECT count(*) FROM u" % repr(" ".join(WORDS))],
        env=env, capture_output=True, text=True)
    check(f"{mode}: 30 slugs renamed", renamed.stdout.strip(), "30")
    app = subprocess.Popen([APP], env=dict(env, PORT=HTTP, POOL_MODE="axum-sqlx-ping",
                                           POOL_ORDER="fifo", DATABASE_URL=dsn),
                           stdout=subprocess.PIPE, text=True)
    paths = []
    for k, w in enumerate(WORDS):
        paths += ["/articles/3" if k % 2 else "/articles/11", "/", f"/tags/{w}"]
    pcap = os.path.join(tmp, "word-slugs.pcap")
    try:
        check(f"{mode}: ready", app.stdout.readline().strip(), "ready")
        check(f"{mode}: a tag page by its word", get("/tags/open-source")[0], 200)
        load_captured(mode, pcap, 150, paths, warm=10)
    finally:
        app.terminate()
        app.wait()

    def analyze(*more):
        p = subprocess.run([PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json",
                            "--no-progress", *more, pcap], capture_output=True, text=True)
        return json.loads(p.stdout)
    learnt, named, off = (analyze(), analyze("--route", "GET /tags/{slug}"),
                          analyze("--route-values", "0"))
    check(f"{mode}: three routes", sorted(x["route"] for x in learnt["routes"]),
          ["GET /", "GET /articles/{id}", "GET /tags/{slug}"])
    note = [w["message"] for w in learnt["warnings"] if w["code"] == "routes-learnt"]
    check(f"{mode}: the note names the learnt route",
          len(note) == 1 and "GET /tags/{slug} (" in note[0], True)
    check(f"{mode}: the figures of --route 'GET /tags/{{slug}}', to the digit",
          learnt["routes"] == named["routes"], True)
    check(f"{mode}: without learning, a route per tag",
          sum(x["route"].startswith("GET /tags/") for x in off["routes"]), 30)
    check_mixed(mode, pcap, (9, 9, 12), (3, 3))


def check_session_lookup(env, dsn, tmp):
    """Every page looks its user up first (SESSION_LOOKUP=1: the same
    statement on every route, as apps with sessions have), the three routes
    at once under 8 clients, where a checkout per page is marked by pings
    (rocket, rustango; FIFO and LIFO): the lookup is each checkout's first
    statement, and every figure within 5% of the mode's plus the lookup, or
    an interval that holds it.  Before checkout_runs.h the checkouts went
    where the lookup goes, shared out among the routes (rocket: 9.78
    (8.86-10.90) per tag page for 7, 4.49 for 6 on the index).  Where each
    query is a checkout of its own the lookup is an uncertain statement
    alone, placed by the density: not gated here (docs/pages.md: 11.37
    (10.95-11.83) per index page for 12 under ASan in a CI run)."""
    for mode in ("rocket", "rustango"):
        (detail, index, tag), acq, rel, _ = MODES[mode]
        for order in ("fifo", "lifo"):
            label = f"{mode} {order}, a lookup first"
            app = subprocess.Popen([APP], env=dict(env, PORT=HTTP, POOL_MODE=mode,
                                                   POOL_ORDER=order, DATABASE_URL=dsn,
                                                   SESSION_LOOKUP="1"),
                                   stdout=subprocess.PIPE, text=True)
            pcap = os.path.join(tmp, f"lookup-{mode}-{order}.pcap")
            try:
                check(f"{label}: ready", app.stdout.readline().strip(), "ready")
                load_captured(label, pcap, 150,
                              ["/articles/3", "/", "/tags/tag-7", "/articles/11"], warm=10)
            finally:
                app.terminate()
                app.wait()
            check_mixed(label, pcap, (detail + 1, index + 1, tag + 1), (acq, rel))


def get(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP}{path}", timeout=10) as r:
        return r.status, r.read()


def main():
    if not PORT:
        skip("no test cluster (PGRTT_PGPORT unset)")
    tmp = tempfile.mkdtemp(prefix="pgrtt-benchapps-")
    env = dict(os.environ, PGHOST="127.0.0.1", PGPORT=PORT, PGUSER="postgres",
               PGSSLMODE="disable")
    subprocess.run(["psql", "-qAt", "-d", "postgres", "-c", "DROP DATABASE IF EXISTS blog",
                    "-c", "CREATE DATABASE blog"], env=env, check=True, capture_output=True)
    dsn = f"host=127.0.0.1 port={PORT} user=postgres dbname=blog sslmode=disable"
    load = subprocess.run([BLOGLOAD, dsn],
                          capture_output=True, text=True)
    counts = dict(re.findall(r"(\w+)=(\d+)", load.stdout))
    check("dataset loaded: the seed's counts", counts,
          {"authors": "10", "tags": "30", "articles": "1000", "article_tags": "2600",
           "comments": "10000"})
    db_counts = subprocess.run(
        ["psql", "-qAt", "-d", "blog", "-c",
         "SELECT (SELECT count(*) FROM articles), (SELECT count(*) FROM comments),"
         " (SELECT count(*) FROM article_tags)"], env=env, capture_output=True, text=True)
    check("the server agrees", db_counts.stdout.strip(), "1000|10000|2600")
    pages = ["/articles/3", "/articles/500", "/", "/tags/tag-7", "/compute"]
    reference = None
    runs = [(m, o) for m in MODES for o in ("fifo", "lifo")]
    for mode, order in runs:
        (detail, index, tag), acq, rel, policy = MODES[mode]
        app = subprocess.Popen([APP], env=dict(env, PORT=HTTP, POOL_MODE=mode, POOL_ORDER=order,
                                               DATABASE_URL=dsn),
                               stdout=subprocess.PIPE, text=True)
        mode = f"{mode} {order}"
        try:
            check(f"{mode}: ready", app.stdout.readline().strip(), "ready")
            bodies = {p: get(p) for p in pages}
            check(f"{mode}: every page 200", sorted({s for s, _ in bodies.values()}), [200])
            if reference is None:
                reference = bodies
            check(f"{mode}: the same bytes as pgx", [p for p in pages if bodies[p] != reference[p]],
                  [])
            seq = os.path.join(tmp, f"{mode.replace(' ', '-')}-seq.pcap")
            capture(seq, (PORT, HTTP), lambda: [get(p) for p in pages * 4])
            # warm up first, as the seed did
            conc = os.path.join(tmp, f"{mode.replace(' ', '-')}-conc.pcap")
            load_captured(mode, conc, 40, ["/articles/3", "/articles/11"], warm=10)
            # the three routes at once (issue 12): every page overlaps pages of
            # the others, and each route's figure is estimated
            mixed = os.path.join(tmp, f"{mode.replace(' ', '-')}-mixed.pcap")
            load_captured(mode, mixed, 150, ["/articles/3", "/", "/tags/tag-7", "/articles/11"])
            saturated = None
            if mode == "axum-sqlx-ping fifo" and not shutil.which("wrk"):
                # the saturated phase needs a load tool: not silently skipped
                # where the live tests are required (CI installs wrk)
                check(f"{mode}, saturated: wrk installed", shutil.which("wrk") is not None,
                      not required())
            elif mode == "axum-sqlx-ping fifo":
                saturated = []
                for order, pick in ORDERS:
                    lua = os.path.join(tmp, f"{order}.lua")
                    with open(lua, "w") as f:
                        # each thread its own seed (the same sequence twice, shifted, would
                        # be a lockstep of its own)
                        f.write('local paths = {"/articles/3", "/", "/tags/tag-7", "/articles/11",'
                                ' "/articles/500"}\nlocal i = 0\nlocal n = 0\n'
                                'function setup(thread) n = n + 1; thread:set("id", n) end\n'
                                'function init(args) math.randomseed(12 + id) end\n'
                                f'request = function()\n  i = i + 1\n  return wrk.format("GET", {pick})\n'
                                'end\n')
                    # 6 s: about 8,000 pages, the lockstep 6-12 standard errors
                    wrk = ["wrk", "-t", "2", "-c", "16", "-d", "6", "-s", lua,
                           f"http://127.0.0.1:{HTTP}"]
                    subprocess.run(wrk[:6] + ["1"] + wrk[7:], check=True, capture_output=True)
                    pcap = os.path.join(tmp, f"saturated-{order}.pcap")
                    for attempt in range(3):
                        out = capture(pcap, (PORT, HTTP), lambda: subprocess.run(
                            wrk, check=True, capture_output=True, text=True).stdout, False)
                        gaps = damage(pcap)
                        if not gaps:
                            break
                        print(f"note {mode}: the saturated capture lost packets ({gaps}):"
                              " captured again", flush=True)
                    # a damaged capture is no evidence of the estimate
                    check(f"{mode}, saturated, {order}: a capture without gaps", gaps, "")
                    saturated.append((order, pcap, out))
        finally:
            app.terminate()
            app.wait()
        for order, pcap, out in saturated or ():
            check_saturated(f"{mode}, saturated, {order}", pcap, (detail, index, tag), out,
                            order == "cycle")
        for name, pcap, routes in (("one page at a time", seq, ("GET /articles/{id}", "GET /",
                                                                 "GET /tags/{slug}")),
                                   ("8 clients on the detail route", conc,
                                    ("GET /articles/{id}",))):
            p = subprocess.run([PGRTT, "analyze", "-p", PORT, "--http-port", HTTP, "-F", "json",
                                "--no-progress", pcap], capture_output=True, text=True)
            d = json.loads(p.stdout)
            r = {x["route"]: x for x in d["routes"]}
            want = {"GET /articles/{id}": detail, "GET /": index, "GET /tags/{slug}": tag}
            for route in routes:
                x = r.get(route, {})
                got = x.get("round_trips_per_page", {}).get("mean")
                if name != "one page at a time" and got is not None:
                    # a connection the pool opens under load costs its startup
                    # inside a page: real, but not the pattern under test
                    got = round(got - x["by_class_per_page"]["startup"], 6)
                check(f"{mode}, {name}: {route} round trips per page", got, want[route])
            bc = r["GET /articles/{id}"]["by_class_per_page"]
            # exact, release-only patterns too: a lone Sync between two queries
            # of one connection reads as either by timing (the pool hands it
            # straight back); the pings whose role is plain show the policy
            check(f"{mode}, {name}: acquire/release pings per detail page",
                  (bc["ping_acquire"], bc["ping_release"]), (acq, rel))
            pings = d["totals"]["pings"]
            if acq + rel and name != "one page at a time":
                check(f"{mode}, {name}: the pool's ping policy", pings["policy"], policy)
                if policy == "release":  # both sides: an edge single is told by timing
                    check(f"{mode}, {name}: no role left to timing alone",
                          pings["told_by_timing"], 0)
            check(f"{mode}, {name}: queries per detail page", bc["query"], 3)
            if name == "8 clients on the detail route":
                check_mixed(mode, mixed, (detail, index, tag), (acq, rel))
            if name == "one page at a time":
                check(f"{mode}: /compute costs no round trip",
                      r["GET /compute"]["round_trips_per_page"]["mean"], 0)
                check(f"{mode}: every page exact",
                      sorted({x["attribution"] for x in d["routes"]}), ["exact"])
    check_word_slugs(env, tmp)
    check_session_lookup(env, dsn, tmp)
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
