#!/usr/bin/python3
"""audit_test.py PGRTT SRCDIR - pgrtt audit on committed captures whose pools
are known: exit codes, messages, JUnit (xmllint), baselines, policies."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures  # noqa: E402

PGRTT, SRC = sys.argv[1:3]
CAP = os.path.join(SRC, "captures")
WEB = ["-p", "55432", "--http-port", "18080", "--no-progress"]
tmp = tempfile.mkdtemp(prefix="pgrtt-audit-")


def audit(*args):
    return subprocess.run([PGRTT, "audit", *args], capture_output=True, text=True)


cap = lambda name: os.path.join(CAP, name)

# acquire pings: present with a ping per checkout, absent without
p = audit(*WEB, "--forbid", "acquire-ping", cap("web-ping-query.pcap"))
check("acquire pings fail", (p.returncode, "acquire pings present (17)" in p.stdout), (1, True))
check("with the cause and the docs", "test_before_acquire" in p.stdout and "docs/pools.md" in p.stdout, True)
p = audit(*WEB, "--forbid", "ping", cap("web-noping.pcap"))
check("no pings pass", (p.returncode, p.stdout.count("ok ")), (0, 3))
# a budget: 6 round trips per detail page (checkout per query, pinged) vs 4 (per page)
p = audit(*WEB, "--route", "GET /articles/{id}=4", cap("web-ping-query.pcap"))
check("budget exceeded", (p.returncode, "6.00 round trips per page > budget 4" in p.stdout), (1, True))
p = audit(*WEB, "--route", "GET /articles/{id}=4", cap("web-ping-page.pcap"))
check("budget met", (p.returncode, "ok   GET /articles/{id}: 4.00 <= 4" in p.stdout), (0, True))
# two routes at once: estimated figures are judged by their interval (issue 12)
p = audit(*WEB, "--route", "GET /articles/{id}=3", cap("web-mixed.pcap"))
check("an estimate wholly over its budget fails",
      (p.returncode, bool(re.search(r"estimated \(\d+% inferred; 95% interval 4\.00-4\.00\)"
                                    r" wholly over budget 3", p.stdout))), (1, True))
p = audit(*WEB, "--route", "GET /articles/{id}=5", "--route", "GET /=3", cap("web-mixed.pcap"))
check("estimates within their budgets pass", (p.returncode, p.stdout.count("within budget")),
      (0, 2))
p = audit(*WEB, "--max-pings-per-page", "1", cap("web-ping-query.pcap"))
check("pings per page", (p.returncode, "3.00 pings per page" in p.stdout), (1, True))
# sqlx-like traffic without HTTP: connection-level rules work, per-page ones fail loudly
p = audit("-p", "55432", "--forbid", "release-ping", cap("sqlx-like.pcap"))
check("release pings fail", (p.returncode, "release pings present (10)" in p.stdout), (1, True))
p = audit("-p", "55432", "--max-rt-per-page", "9", cap("sqlx-like.pcap"))
check("per-page rule without pages fails", (p.returncode, "no pages" in p.stdout), (1, True))
p = audit(*WEB, "--min-pages", "10", cap("web-noping.pcap"))
check("min pages", (p.returncode, "7 pages < 10" in p.stdout), (1, True))
# baseline: one more round trip per page than the committed baseline fails
base = os.path.join(tmp, "baseline.json")
p = audit(*WEB, "--write-baseline", base, cap("web-noping.pcap"))
check("baseline written", (p.returncode, json.load(open(base))["routes"]["GET /articles/{id}"]), (0, 3))
junit = os.path.join(tmp, "audit.xml")
p = audit(*WEB, "--baseline", base, "--max-increase", "0", "--junit", junit, "--github",
          cap("web-ping-page.pcap"))
check("regression by one round trip", (p.returncode, "(+1.00, allowed +0)" in p.stdout), (1, True))
check("GitHub annotations", len(re.findall(r"^::error title=pgrtt audit baseline::", p.stdout, re.M)), 2)
x = subprocess.run(["xmllint", "--noout", junit], capture_output=True, text=True)
check("JUnit is well-formed XML", (x.returncode, x.stderr), (0, ""))
xml = open(junit).read()
check("JUnit counts", ('tests="2"' in xml, 'failures="2"' in xml, xml.count("<failure ")), (True, True, 2))
p = audit(*WEB, "--baseline", base, "--max-increase", "1", cap("web-ping-page.pcap"))
check("within the allowed increase", p.returncode, 0)
# a policy file; bad policies are input errors (2)
pol = os.path.join(tmp, "policy.json")
json.dump({"max_rt_per_page": 4, "forbid": ["acquire-ping"], "routes": {"GET /": 2},
           "min_pages": 1}, open(pol, "w"))
p = audit(*WEB, "--policy", pol, cap("web-ping-page.pcap"))
check("policy", (p.returncode, p.stdout.count("FAIL"), p.stdout.count("ok ")), (1, 1, 3))
for bad, msg in (({"max_rt_per_pag": 4}, "unknown rule"), ({"max_rt_per_page": "4"}, "expected a number"),
                 ({"forbid": "ping"}, "expected an array"), ({"forbid": ["pings"]}, "unknown \"pings\""),
                 ({"routes": {"GET /": "x"}}, "expected a number")):
    json.dump(bad, open(pol, "w"))
    p = audit(*WEB, "--policy", pol, cap("web-ping-page.pcap"))
    check(f"bad policy {bad}", (p.returncode, msg in p.stderr), (2, True))
open(pol, "w").write("{not json")
check("policy not JSON", audit(*WEB, "--policy", pol, cap("web-noping.pcap")).returncode, 2)
check("no rules: usage error", audit(*WEB, cap("web-noping.pcap")).returncode, 64)
check("bad forbid flag: usage error", audit(*WEB, "--forbid", "x", cap("web-noping.pcap")).returncode, 64)
check("missing capture", audit(*WEB, "--forbid", "ping", cap("nope.pcap")).returncode, 2)
# -r FILE as in analyze, dump and trace: the same run as naming the file
a = audit(*WEB, "--forbid", "acquire-ping", "-F", "json", cap("web-ping-query.pcap"))
b = audit(*WEB, "--forbid", "acquire-ping", "-F", "json", "-r", cap("web-ping-query.pcap"))
check("-r FILE: as FILE", (b.returncode, json.loads(b.stdout)["checks"]),
      (a.returncode, json.loads(a.stdout)["checks"]))
check("-r FILE with --db: a usage error", audit("--db", os.path.join(tmp, "x.db"), "--forbid",
      "ping", "-r", cap("web-ping-query.pcap")).returncode, 64)
check("-r without a value: a usage error", audit("--forbid", "ping", "-r").returncode, 64)
# a stored run
db = os.path.join(tmp, "runs.db")
subprocess.run([PGRTT, "analyze", *WEB, "--db", db, cap("web-ping-query.pcap")], capture_output=True)
p = audit("--db", db, "--run", "latest", "--forbid", "acquire-ping", "--max-rt-per-page", "6", "-F", "json")
d = json.loads(p.stdout)
check("stored run", (p.returncode, d["failures"], len(d["checks"])), (1, 1, 3))
check("missing stored run", audit("--db", db, "--run", "9", "--forbid", "ping").returncode, 2)
check("the run judged is named", (d["run"]["id"], d["run"]["app"]), (1, ""))
# a store two runners share: the newest run of the app told, never another app's
shared = os.path.join(tmp, "shared.db")
for app, c in (("shop", "web-ping-query.pcap"), ("other", "web-noping.pcap")):
    subprocess.run([PGRTT, "analyze", *WEB, "--db", shared, "--app", app, "--label", "ci=1", cap(c)],
                   capture_output=True, check=True)
gate = ["--forbid", "acquire-ping", "--max-rt-per-page", "4"]
p = audit("--db", shared, *gate)
check("two apps, no --app: a usage error listing them, nothing judged",
      (p.returncode, "holds runs of 2 apps (other, shop)" in p.stderr, p.stdout), (64, True, ""))
p = audit("--db", shared, "--label", "ci=1", *gate)
check("... a label both share does not choose either", p.returncode, 64)
xml = os.path.join(tmp, "shared.xml")
p = audit("--db", shared, "--app", "shop", "--junit", xml, *gate)
check("--app shop: its own older run, failed and named",
      (p.returncode, p.stdout.splitlines()[0].startswith("audited run 1 (app shop; ci=1; stored ")),
      (1, True))
check("... named in the JUnit file", 'name="pgrtt.run" value="run 1 (app shop; ci=1;' in open(xml).read(),
      True)
p = audit("--db", shared, "--app", "other", *gate)
check("--app other: its run passes", (p.returncode, "audited run 2 (app other;" in p.stdout), (0, True))
p = audit("--db", shared, "--app", "shop", "--run", "2", *gate)
check("--run of another app than --app: exit 2", (p.returncode, "not of the --app" in p.stderr), (2, True))
p = audit("--db", shared, "--app", "nosuch", *gate)
check("an app with no run: exit 2", (p.returncode, "no run of the --app" in p.stderr), (2, True))
check("--app with capture files: a usage error",
      audit(*WEB, "--app", "shop", *gate, cap("web-noping.pcap")).returncode, 64)

# evidence: the gate never passes on what it could not measure (issue 9)
def codes(p):
    return [c["rule"] for c in json.loads(p.stdout)["checks"] if c["subject"] == "evidence" and not c["ok"]]


# the app's database is on 55432: with -p 5432 nothing was measured -> 2, not 0
p = audit("-p", "5432", "--http-port", "18080", "--no-progress", "--max-rt-per-page", "4",
          "--forbid", "acquire-ping", "--min-pages", "5", cap("web-ping-query.pcap"))
check("wrong port: exit 2", p.returncode, 2)
check("wrong port: says where PostgreSQL was", "try -p 55432" in p.stdout, True)
check("wrong port: no rule reported ok", re.findall(r"^ok ", p.stdout, re.M), [])
p = audit("-p", "5432", "--http-port", "18080", "--no-progress", "--max-rt-per-page", "4",
          "--allow", "no-postgresql", cap("web-ping-query.pcap"))
check("wrong port allowed: the rules run", (p.returncode, "ok   evidence: no-postgresql" in p.stdout),
      (0, True))
# a TLS pool picked up mid-stream: nothing decodable -> 2; allowed -> rules on zeros pass
p = audit("-p", "55432", "--forbid", "ping", "-F", "json", cap("tls-midstream.pcap"))
check("TLS mid-stream: exit 2, findings", (p.returncode, codes(p)), (2, ["no-round-trips", "encrypted"]))
check("TLS mid-stream: not measured", json.loads(p.stdout)["measured"], False)
p = audit("-p", "55432", "--forbid", "ping", "--allow", "no-round-trips,encrypted",
          cap("tls-midstream.pcap"))
check("TLS mid-stream allowed", p.returncode, 0)
# counts that are lower bounds fail the gate (exit 1), each by its name
for capture, code in (("damaged-snaplen80.pcap", "truncated"), ("damaged-dropped.pcap", "gaps"),
                      ("damaged-corrupt.pcap", "malformed"), ("damaged-truncated.pcap", "partial-input"),
                      ("ssl.pcap", "encrypted")):
    p = audit("-p", "55432", "--no-progress", "--forbid", "acquire-ping", "-F", "json", cap(capture))
    want_rc = 2 if capture == "ssl.pcap" else 1
    check(f"{capture}: {code} fails the gate", (p.returncode, code in codes(p)), (want_rc, True))
    p = audit("-p", "55432", "--no-progress", "--forbid", "acquire-ping", "--allow",
              ",".join(codes(p)), cap(capture))
    check(f"{capture}: allowed explicitly", p.returncode, 0 if capture != "ssl.pcap" else 0)
# HTTP evidence: no pages on the HTTP port; undecodable HTTP
p = audit("-p", "55432", "--http-port", "18081", "--no-progress", "--max-rt-per-page", "9",
          "-F", "json", cap("web-noping.pcap"))
check("no pages on the HTTP port", (p.returncode, codes(p)), (1, ["no-pages"]))
msgs = [c["message"] for c in json.loads(p.stdout)["checks"] if c["rule"] == "pages-seen"]
check("per-page rule: says what is missing, not --http-port",
      [("--http-port" in m, "no complete HTTP request" in m) for m in msgs], [(False, True)])
p = audit("-p", "55432", "--http-port", "18080", "--no-progress", "--max-rt-per-page", "9",
          "--allow", "no-postgresql", "-F", "json", cap("http-not-decodable.pcap"))
check("HTTP not decodable fails", (p.returncode, "http-undecodable" in codes(p)), (1, True))
# a stored run keeps its findings: audit --db fails on them too
db2 = os.path.join(tmp, "tls.db")
subprocess.run([PGRTT, "analyze", "-p", "55432", "--no-progress", "--db", db2, cap("tls-midstream.pcap")],
               capture_output=True)
p = audit("--db", db2, "--forbid", "ping", "-F", "json")
check("stored TLS run: exit 2, findings", (p.returncode, codes(p)), (2, ["no-round-trips", "encrypted"]))
check("unknown finding in --allow: usage error", audit(*WEB, "--forbid", "ping", "--allow", "nope",
                                                     cap("web-noping.pcap")).returncode, 64)
json.dump({"forbid": ["ping"], "allow": ["nope"]}, open(pol, "w"))
check("unknown finding in a policy: input error", audit(*WEB, "--policy", pol,
                                                      cap("web-noping.pcap")).returncode, 2)
json.dump({"forbid": ["ping"], "allow": ["mid-stream", "gaps"]}, open(pol, "w"))
check("allow in a policy", audit(*WEB, "--policy", pol, cap("web-noping.pcap")).returncode, 0)
# -o: the report goes to the file; --write-baseline with rules still checks them
rep = os.path.join(tmp, "audit.txt")
p = audit(*WEB, "--forbid", "acquire-ping", "-o", rep, "--write-baseline", base, cap("web-ping-query.pcap"))
check("-o and --write-baseline: rules checked", (p.returncode, p.stdout, "FAIL pings" in open(rep).read()),
      (1, "", True))
# --write-baseline: missing directories made, reasons given, never a baseline of nothing
deep = os.path.join(tmp, "ci", "out", "base.json")
p = audit(*WEB, "--max-rt-per-page", "9", "--write-baseline", deep, cap("web-noping.pcap"))
check("--write-baseline makes the directories", (p.returncode, os.path.exists(deep),
                                                 os.path.exists(deep + ".tmp")), (0, True, False))
os.chmod(os.path.dirname(deep), 0o555)
p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", PGRTT,
                    "audit", *WEB, "--max-rt-per-page", "9", "--write-baseline",
                    os.path.join(os.path.dirname(deep), "x", "b.json"), cap("web-noping.pcap")],
                   capture_output=True, text=True)
check("--write-baseline where it cannot: exit 2, and why",
      (p.returncode, "Permission denied" in p.stderr), (2, True))
os.chmod(os.path.dirname(deep), 0o755)
p = audit("-p", "5432", "--http-port", "18080", "--no-progress", "--max-rt-per-page", "9",
          "--write-baseline", os.path.join(tmp, "none.json"), cap("web-noping.pcap"))
check("no baseline of nothing (the wrong port)",
      (p.returncode, os.path.exists(os.path.join(tmp, "none.json")),
       "no route was measured" in p.stderr), (2, False, True))
first = os.path.join(tmp, "first.json")
json.dump({"max_rt_per_page": 9, "baseline": first}, open(pol, "w"))
p = audit(*WEB, "--policy", pol, "--write-baseline", first, cap("web-noping.pcap"))
check("the policy's own baseline, missing on the first run: written, not an error",
      (p.returncode, os.path.exists(first), "this run writes it" in p.stderr), (0, True, True))
p = audit(*WEB, "--policy", pol, cap("web-ping-query.pcap"))
check("... and the next run compared with it", (p.returncode, "baseline 3.00 (+3.00" in p.stdout),
      (1, True))
# --baseline-from: the last stored run of main is the baseline, not a committed file
hist = os.path.join(tmp, "history.db")
for label, c in (("main", "web-ping-query.pcap"), ("main", "web-ping-page.pcap"),
                 ("feature", "web-ping-query.pcap"), ("other", "web-noping.pcap")):
    subprocess.run([PGRTT, "analyze", *WEB, "--db", hist, "--app", "shop", "--label",
                    f"branch={label}", cap(c)], capture_output=True, check=True)
p = audit("--db", hist, "--run", "3", "--baseline-from", "app=shop,branch=main,last")
check("--baseline-from: the feature run against main's last (run 2: 4 per detail page)",
      (p.returncode, "6.00 round trips per page, baseline 4.00 of run 2 (+2.00" in p.stdout),
      (1, True))
p = audit("--db", hist, "--run", "2", "--baseline-from", "app=shop,branch=main")
check("--baseline-from: never the audited run itself (main's run 2 against run 1)",
      (p.returncode, "baseline 6.00 of run 1" in p.stdout), (0, True))
p = audit(*WEB, "--db", hist, "--baseline-from", "app=shop,branch=main", cap("web-noping.pcap"))
check("--baseline-from with capture files: --db is the history",
      (p.returncode, "3.00 round trips per page, baseline 4.00 of run 2" in p.stdout), (0, True))
json.dump({"baseline_from": "app=shop,branch=main"}, open(pol, "w"))
p = audit("--db", hist, "--run", "3", "--policy", pol)
check("baseline_from in a policy", (p.returncode, "of run 2" in p.stdout), (1, True))
p = audit("--db", hist, "--baseline-from", "app=shop,branch=nope")
check("--baseline-from that matches nothing: exit 2, said",
      (p.returncode, "no stored run with measured pages matches" in p.stderr), (2, True))
check("--baseline-from without --db: usage",
      audit(*WEB, "--baseline-from", "app=shop", cap("web-noping.pcap")).returncode, 64)
check("--baseline-from not KEY=VALUE: usage",
      audit("--db", hist, "--baseline-from", "main").returncode, 64)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
