#!/usr/bin/python3
"""hostile_test.py PGRTT SRCDIR - hostile text through every output.

captures/web-hostile.pcap holds real requests to the blog app whose methods
and paths carry markup, Markdown cell separators, backticks, image links,
spreadsheet formulas and GitHub workflow commands (tests/clients/hostile.py);
--app, --label and a file name add terminal escapes.  Each sink must keep
the text as text: the same cells, no element, no formula, no annotation and
no control byte that the network or the caller put there."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, failures, required  # noqa: E402

PGRTT, SRC = sys.argv[1:3]
CAP = os.path.join(SRC, "captures", "web-hostile.pcap")
WEB = ["-p", "55432", "--http-port", "18080", "--no-progress"]
ESC = "\x1b[31m\x1b]0;pwned\x07"
tmp = tempfile.mkdtemp(prefix="pgrtt-hostile-")


def run(*args):
    return subprocess.run([PGRTT, *args], capture_output=True, text=True, errors="replace")


# what the client sent, from its own report: the routes pgrtt must show
client = open(os.path.join(SRC, "captures", "web-hostile.client")).read().splitlines()
sent = [l.rsplit(" -> ", 1)[0] for l in client if " -> " in l]
routes = json.loads(run("analyze", *WEB, "-F", "json", CAP).stdout)["routes"]
names = sorted(r["route"] for r in routes)
check("JSON keeps every route as sent", names, sorted(sent))
hostile = [r for r in names if any(c in r for c in "<|`=+@%")]
check("hostile routes", len(hostile), 7)

db = os.path.join(tmp, "runs.db")
p = run("analyze", *WEB, "--db", db, "--app", "evil" + ESC, "--label", "k=<b>|`v`" + ESC, CAP)
check("stored", p.returncode, 0)
check("analyze: no escape byte on the terminal", "\x1b" in p.stdout + p.stderr, False)
# diagnostics: a file name with a C1 control sent as UTF-8 (CSI, U+009B) and
# a byte that is not UTF-8 - both escaped on stderr, as in every output
bad_name = os.path.join(tmp.encode(), b"x\xc2\x9b2J\xff.pcap")
q = subprocess.run([PGRTT.encode(), b"analyze", b"-p", b"55432", bad_name], capture_output=True)
check("diagnostics: C1 and non-UTF-8 bytes of a file name escaped",
      (q.returncode, b"\xc2\x9b" in q.stderr, b"\xff" in q.stderr, b"x\\xc2\\x9b2J\\xff.pcap" in q.stderr),
      (2, False, False, True))

# Markdown: every row has exactly the header's cells, the numbers stay in place
md = run("report", "--db", db).stdout
cells = lambda l: re.split(r"(?<!\\)\|", l)[1:-1]
tables = [[l for l in t.splitlines() if l.startswith("|")] for t in md.split("\n\n")]
tables = [t for t in tables if t]
check("Markdown: two tables (runs, routes)", len(tables), 2)
for t in tables:
    check("Markdown: cells per row", sorted({len(cells(l)) for l in t}), [len(cells(t[0]))])
lines = tables[1]
rt_col = [c.strip() for c in cells(lines[0])].index("round trips / page")
vals = sorted(cells(l)[rt_col].strip() for l in lines[2:])
check("Markdown: round trips per page as measured", vals, ["**0.00**"] + ["**1.00**"] * 6)
check("Markdown: no raw image, link or code span",
      [re.search(r"(?<!\\)(!\[|\]\(|`)", l) is not None for l in lines[2:]], [False] * 7)
check("Markdown: no escape byte", "\x1b" in md, False)

# CSV: the header's fields in every row; no field a spreadsheet would run
rows = list(csv.reader(io.StringIO(run("report", "--db", db, "-F", "csv").stdout)))
check("CSV: fields per row", sorted({len(r) for r in rows}), [len(rows[0])])
text_cols = [rows[0].index(k) for k in ("app", "labels", "route", "warnings")]
starts = [r[i][:1] for r in rows[1:] for i in text_cols if r[i]]
check("CSV: no field starts a formula", [s for s in starts if s in "=+-@\t\r"], [])
route_col = rows[0].index("route")
check("CSV: routes kept behind the quote",
      sorted(r[route_col].lstrip("'") for r in rows[1:]), sorted(sent))
cmp = list(csv.reader(io.StringIO(run("analyze", *WEB, "--db", db, CAP).stdout and
                                  run("report", "--db", db, "-F", "csv", "--compare", "1",
                                      "2").stdout)))
check("CSV compare: fields per row", sorted({len(r) for r in cmp}), [len(cmp[0])])
# --app and --label with an escape, a newline and a workflow command: one CSV
# line per row, no control byte, no line a CI log would take for a command
db_nl = os.path.join(tmp, "newline.db")
run("analyze", *WEB, "--db", db_nl, "--app", "a" + ESC + "\n::error::forged", "--label",
    "k=v\r\n::warning::x\u009b2J", CAP)
raw = run("report", "--db", db_nl, "-F", "csv").stdout
check("CSV: no control byte, no C1, from --app and --label",
      [c for c in raw if (ord(c) < 0x20 and c not in "\n") or 0x7f <= ord(c) <= 0x9f], [])
check("CSV: no line starts a workflow command", [l for l in raw.splitlines() if l.startswith("::")], [])
rows_nl = list(csv.reader(io.StringIO(raw)))
check("CSV: a row a line, the app's text shown escaped",
      (len(raw.splitlines()), "a\\x1b[31m\\x1b]0;pwned\\x07\\x0a::error::forged" in raw),
      (len(rows_nl), True))
check("CSV compare: no formula", [r[0][:1] for r in cmp[1:] if r[0][:1] in "=+-@"], [])

# GitHub annotations: one line per failure, % CR LF encoded, nothing forged
p = run("audit", *WEB, "--max-rt-per-page", "0.5", "--github", CAP)
ann = [l for l in p.stdout.splitlines() if l.startswith("::")]
check("GitHub: one annotation per failed route", len(ann), 6)
check("GitHub: every line is an error command", all(l.startswith("::error title=") for l in ann), True)
check("GitHub: '%0A' sent as text stays text", any("%250A" in l for l in ann), True)
check("GitHub: no raw %0A", any(re.search(r"%0A", l) for l in ann), False)
# with JSON on standard output the annotations go to standard error
p = run("audit", *WEB, "--max-rt-per-page", "0.5", "--github", "-F", "json", CAP)
check("GitHub + JSON: stdout is JSON", json.loads(p.stdout)["failures"], 6)
check("GitHub + JSON: annotations on stderr", p.stderr.count("::error title="), 6)

# JUnit: well-formed, one testcase per check
junit = os.path.join(tmp, "audit.xml")
run("audit", *WEB, "--max-rt-per-page", "0.5", "--junit", junit, CAP)
x = subprocess.run(["xmllint", "--noout", junit], capture_output=True, text=True)
check("JUnit: well-formed", (x.returncode, x.stderr), (0, ""))

# terminal: stored app and labels, and a file name, come back escaped
p = run("runs", "--db", db)
check("runs: no escape byte", "\x1b" in p.stdout, False)
check("runs: shown escaped", "evil\\x1b[31m" in p.stdout, True)
p = run("runs", "--db", db, "show", "1")
check("runs show: no escape byte", "\x1b" in p.stdout, False)
odd = os.path.join(tmp, "cap" + ESC + ".pcap")
shutil.copy(CAP, odd)
p = run("analyze", *WEB, odd)
check("file name: no escape byte", "\x1b" in p.stdout + p.stderr, False)
p = run("analyze", *WEB, odd + ".missing")
check("error message: no escape byte", (p.returncode, "\x1b" in p.stderr), (2, False))

# HTML: Chromium builds the page; no element came from the traffic
html = os.path.join(tmp, "report.html")
run("report", "--db", db, "-F", "html", "-o", html)
page = open(html).read()
check("HTML: no script element in the file", "<script" in page, False)
chromium = shutil.which("chromium")
if chromium:
    prof = os.path.join(tmp, "profile")
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                          "--no-first-run", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync", "--disable-quic",
                          f"--user-data-dir={prof}", "--dump-dom", "file://" + html],
                         capture_output=True, text=True, timeout=120).stdout
    check("HTML (Chromium): no script, img or a element",
          [t for t in ("<script", "<img", "<a ") if t in dom], [])
    check("HTML (Chromium): the path shown as text", "&lt;script&gt;alert(1)&lt;/script&gt;" in dom,
          True)
elif required():
    check("chromium installed", False, True)

# bytes that are not UTF-8 (captures/web-hostile-utf8.pcap: Latin-1 and
# overlong paths, an application_name of 0xff 0xfe): the paths' pages
# counted, their bytes percent-encoded as a client should have sent them;
# every JSON output UTF-8 a strict parser reads, other bad bytes U+FFFD
UTF = os.path.join(SRC, "captures", "web-hostile-utf8.pcap")


def strict_json(args):
    p = subprocess.run([PGRTT, *args], capture_output=True)
    try:
        return json.loads(p.stdout.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError) as e:
        return str(e)


d = strict_json(["analyze", *WEB, "-F", "json", UTF])
check("JSON of bad UTF-8: strict UTF-8", isinstance(d, dict), True)
if isinstance(d, dict):
    check("raw bytes in paths: pages, percent-encoded",
          sorted((r["route"], r["pages"]) for r in d["routes"]),
          [("GET /%C0%AF%FF", 1), ("GET /caf%E9", 1)])
    check("bad bytes in an application_name as U+FFFD",
          [c.get("application_name") for c in d["connections"]
           if (c.get("application_name") or "").startswith("app")], ["app\ufffd\ufffd"])
db2 = os.path.join(tmp, "utf8.db")
check("stored", run("analyze", *WEB, "--db", db2, UTF).returncode, 0)
check("report -F json of bad UTF-8: strict UTF-8",
      isinstance(strict_json(["report", "--db", db2, "-F", "json"]), dict), True)
check("audit -F json of bad UTF-8: strict UTF-8",
      isinstance(strict_json(["audit", *WEB, "--max-rt-per-page", "0.5", "-F", "json", UTF]), dict),
      True)

# statements: no value of the traffic in dump, dump --round-trips or trace
# unless --show-values (psql's session sends 'hello', 'again', 1/0; the
# blog app's detail pages their article ids)
PSQL = os.path.join(SRC, "captures", "psql-mixed.pcap")
PAGES = os.path.join(SRC, "captures", "web-ping-query.pcap")
values = ("'hello'", "'again'", "1/0")
for cmd in (["dump", "-p", "55432", PSQL], ["dump", "-p", "55432", "--round-trips", PSQL]):
    out = run(*cmd).stdout
    check(f"{cmd[:-1]}: no literal by default", [v for v in values if v in out], [])
    check(f"{cmd[:-1]}: the normalised text", "pg_notify($1, $2)" in out, True)
    out = run(*cmd[:-1], "--show-values", PSQL).stdout
    check(f"{cmd[:-1]} --show-values: the literals", [v for v in values if v in out], list(values))
out = run("trace", *WEB, PAGES).stdout
check("trace: statements normalised",
      (out.count('WHERE id = $1"'), re.search(r"WHERE id = \d", out)), (5, None))
out = run("trace", *WEB, "--show-values", PAGES).stdout
check("trace --show-values: the ids the pages asked for",
      sorted(set(re.findall(r"FROM articles WHERE id = (\d+)\"", out))), ["1", "2", "3", "4", "5"])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
