#!/usr/bin/python3
"""ci_docs_test.py PGRTT SRCDIR CASE - docs/ci.md runs as written.

walkthrough: the block between the walkthrough markers, run with bash in a
  directory laid out as a checkout (build/pgrtt, captures/, docs/); every
  "echo exit $?" must print the status its comment says, and the files it
  writes must be there.
actions: docs/examples/github-actions.yml (and docs/ci.md's copy of it):
  its shell steps in order, as a runner would (bash -e, the job's env,
  $GITHUB_PATH, $GITHUB_STEP_SUMMARY, if: always()), against the test
  cluster (PGRTT_PGPORT) and the blog test app: the install step's
  packages must be installed (tests/run.sh installs them), pgrtt is built
  from this tree, the capture is ended by SIGINT at its own PID and stores
  its run, the gate passes a pool without pings and fails one with them,
  and the summary holds the report."""
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import xml.dom.minidom

PGRTT, SRC, CASE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "live")]  # checklib, livelib
from checklib import check, failures, skip  # noqa: E402
from livelib import free_port  # noqa: E402



def checkout(tmp):
    """A directory that looks like a checkout of pgrtt with build/pgrtt."""
    os.makedirs(os.path.join(tmp, "build"))
    os.symlink(PGRTT, os.path.join(tmp, "build", "pgrtt"))
    for d in ("captures", "docs"):
        os.symlink(os.path.join(SRC, d), os.path.join(tmp, d))



tmp = tempfile.mkdtemp(prefix="pgrtt-cidocs-")
ci_md = open(os.path.join(SRC, "docs", "ci.md")).read()

if CASE == "walkthrough":
    m = re.search(r"<!-- walkthrough: begin -->\n```sh\n(.*?)```\n<!-- walkthrough: end -->", ci_md,
                  re.S)
    check("the walkthrough block is in docs/ci.md", m is not None, True)
    if m:
        block = m.group(1)
        checkout(tmp)
        p = subprocess.run(["bash", "-c", block], cwd=tmp, capture_output=True, text=True,
                           timeout=120)
        got = [int(x) for x in re.findall(r"^exit (\d+)$", p.stdout, re.M)]
        want = [int(x) for x in re.findall(r'echo "exit \$\?"\s+# exit (\d+)', block)]
        check("every step's exit status as its comment says", got, want)
        check("three steps", len(want), 3)
        base = os.path.join(tmp, "ci-out", "pgrtt-baseline.json")
        check("the first run made ci-out/ and wrote the baseline", os.path.exists(base), True)
        check("no temporary file left", os.path.exists(base + ".tmp"), False)
        check("the baseline holds the routes measured",
              open(base).read().count("GET /") if os.path.exists(base) else 0, 2)
        check("the second run's failures say why",
              ("6.00 round trips per page > budget 4" in p.stdout,
               "baseline 4.00 (+2.00" in p.stdout), (True, True))
        junit = os.path.join(tmp, "ci-out", "audit.xml")
        check("JUnit written", os.path.exists(junit), True)
        if os.path.exists(junit):
            xml.dom.minidom.parse(junit)
        check("the wrong port named", "try -p 55432" in p.stdout, True)

elif CASE == "actions":
    import yaml
    port = os.environ.get("PGRTT_PGPORT")
    if not port:
        skip("no test cluster (PGRTT_PGPORT unset)")
    wf_path = os.path.join(SRC, "docs", "examples", "github-actions.yml")
    text = open(wf_path).read()
    check("docs/ci.md shows the workflow as it is", f"```yaml\n{text}```" in ci_md, True)
    wf = yaml.safe_load(text)
    job = wf["jobs"]["audit"]
    steps = job["steps"]
    install = next(s for s in steps if s.get("id") == "install")
    pkgs = [w for w in install["run"].split() if re.match(r"^[a-z0-9][a-z0-9.+-]+$", w)
            and w not in ("sudo", "apt-get", "update", "install")]
    missing = [p for p in pkgs if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode]
    check(f"the install step's packages ({len(pkgs)}) are what tests/run.sh installs", missing, [])
    for pool, gate in (("noping", 0), ("ping-query", 1)):
        work = os.path.join(tmp, pool)
        os.makedirs(work)
        os.symlink(SRC, os.path.join(work, "pgrtt"))  # the second checkout
        shutil.copy(os.path.join(SRC, "docs", "examples", "pgrtt-policy.json"), work)
        app_port = free_port()
        # the app's own scripts: the blog test app on the test cluster, and a
        # suite of 5 detail pages and 2 index pages one after another
        open(os.path.join(work, "start-app.sh"), "w").write(
            "#!/bin/sh\nexec /usr/bin/python3 %s \"host=$PGHOST port=$PGPORT user=$PGUSER "
            "dbname=postgres sslmode=disable\" \"$APP_PORT\" %s\n"
            % (os.path.join(SRC, "tests", "clients", "webapp.py"), pool))
        open(os.path.join(work, "run-integration-tests.sh"), "w").write(
            "#!/bin/sh\nexec /usr/bin/python3 %s \"$APP_PORT\" 1 7 /articles/1 /articles/2 "
            "/articles/3 /articles/4 /articles/5 / /\n"
            % os.path.join(SRC, "tests", "clients", "load.py"))
        for f in ("start-app.sh", "run-integration-tests.sh"):
            os.chmod(os.path.join(work, f), 0o755)
        # a runner: root needs no sudo, and a plain machine may not have it
        shim = os.path.join(tmp, "bin")
        os.makedirs(shim, exist_ok=True)
        if not os.path.exists(os.path.join(shim, "sudo")):
            open(os.path.join(shim, "sudo"), "w").write('#!/bin/sh\nexec "$@"\n')
            os.chmod(os.path.join(shim, "sudo"), 0o755)
        runner = os.path.join(tmp, "runner")  # one for both: the second build is a no-op
        os.makedirs(runner, exist_ok=True)
        env = dict(os.environ, **{k: str(v) for k, v in job["env"].items()})
        env.update(PGPORT=port, PGPASSWORD="", APP_PORT=str(app_port), RUNNER_TEMP=runner,
                   GITHUB_PATH=os.path.join(work, "path"),
                   GITHUB_STEP_SUMMARY=os.path.join(work, "summary.md"),
                   GITHUB_SHA="0123abcd", PATH=shim + ":" + os.environ["PATH"])
        open(env["GITHUB_PATH"], "w").close()
        results, broken = {}, False
        app_group = None
        try:
            for s in steps:
                name = s.get("name") or s.get("uses")
                if "uses" in s or s.get("id") == "install":
                    continue  # actions are the runner's; the install step is checked above
                if broken and "always()" not in str(s.get("if", "")):
                    continue
                extra = [l for l in open(env["GITHUB_PATH"]).read().splitlines() if l]
                step_env = dict(env, PATH=":".join(extra[::-1] + [env["PATH"]]))
                p = subprocess.Popen(["bash", "-e", "-c", s["run"]], cwd=work, env=step_env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
                out, _ = p.communicate(timeout=600)
                results[name] = (p.returncode, out)
                if name == "start the app":
                    app_group = p.pid  # the app runs on in the step's process group
                broken |= p.returncode != 0
        finally:
            if app_group:  # the app the step started, by its process group
                try:
                    os.killpg(app_group, 15)
                except ProcessLookupError:
                    pass
        for name in ("build pgrtt", "start the app", "integration tests under capture", "report"):
            rc, out = results.get(name, (None, ""))
            check(f"{pool}: step '{name}'", rc, 0)
            if rc:
                print(out[-2000:])
        rc, out = results.get("gate", (None, ""))
        check(f"{pool}: the gate's exit status", rc, gate)
        if gate:
            check(f"{pool}: the annotations name the route over budget",
                  "::error title=" in out and "GET /articles/{id}" in out, True)
        else:
            print(out[-1500:])
        cap = results.get("integration tests under capture", (None, ""))[1]
        check(f"{pool}: the capture ended by SIGINT at its own PID and stored its run",
              "stored run 1" in cap, True)
        db = os.path.join(work, "ci-out", "runs.db")
        if os.path.exists(db):
            row = sqlite3.connect(db).execute(
                "SELECT count(*), max(http_requests), (SELECT value FROM run_labels WHERE"
                " key = 'commit') FROM runs").fetchone()
            check(f"{pool}: the run stored: 7 requests, the commit label", row, (1, 7, "0123abcd"))
        summary = open(env["GITHUB_STEP_SUMMARY"]).read() if os.path.exists(
            env["GITHUB_STEP_SUMMARY"]) else ""
        check(f"{pool}: the job summary holds the Markdown report",
              ("## Runs" in summary, "| GET /articles/{id} |" in summary), (True, True))
        html = os.path.join(work, "ci-out", "round-trips.html")
        check(f"{pool}: the HTML report for the artifact", os.path.exists(html), True)
        check(f"{pool}: the first run wrote the baseline to upload",
              os.path.exists(os.path.join(work, "ci-out", "pgrtt-baseline.json")), True)
        junit = os.path.join(work, "ci-out", "audit.xml")
        if os.path.exists(junit):
            xml.dom.minidom.parse(junit)
        check(f"{pool}: JUnit written", os.path.exists(junit), True)
else:
    print(f"unknown case {CASE}")
    failures.append(f"unknown case {CASE}")

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
