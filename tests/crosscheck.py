#!/usr/bin/python3
"""crosscheck.py PGRTT CAPTURES_DIR NAME - check one line of captures/EXPECTED.

Runs `pgrtt analyze -p 55432 -F json` on the capture and compares each
check with the value the client reported or with tshark's ReadyForQuery
count on the same file (tshark_redis: the Redis commands its RESP
dissector decodes; KEY=VALUE, KEY>=VALUE, KEY>VALUE, KEY~VALUE/PCT%:
within PCT percent of VALUE, for estimated figures, and KEY@VALUE: the
interval [lo, hi] at KEY holds VALUE).  Exit 0 pass, 1 fail, 77 skip (no
tshark)."""
import json
import os
import re
import shutil
import subprocess
import sys

PORT = "55432"
REDIS_PORT = "56379"  # the committed Redis captures' (make-captures.sh)
POOLER_PORT = "56432"  # PgBouncer's in pooler-legs.pcap (make-captures.sh)


def tshark_rfq(path, ports=(PORT,)):
    """ReadyForQuery messages as tshark decodes them on ports.  Counted per
    message: -Y would count frames, and one frame can carry many (pipelines)."""
    decode = [a for p in ports for a in ("-d", f"tcp.port=={p},pgsql")]
    out = subprocess.run(
        ["tshark", "-n", "-r", path, *decode, "-Y", "pgsql", "-T", "fields", "-e", "pgsql.type"],
        capture_output=True, text=True)
    # tshark reports "cut short" files on stderr and still prints what it read
    return out.stdout.count("Ready for query")


def tshark_tls_streams(path):
    """TCP connections in which tshark, told the port carries TLS, decodes
    TLS records: the encrypted connections, whether or not their start was
    captured."""
    out = subprocess.run(
        ["tshark", "-n", "-r", path, "-d", f"tcp.port=={PORT},tls", "-Y", "tls.record",
         "-T", "fields", "-e", "tcp.stream"], capture_output=True, text=True)
    return len(set(out.stdout.split()))


def tshark_redis_commands(path):
    """Client commands as tshark's RESP dissector decodes them: the arrays
    sent to the server, counted per array.  Only for captures whose commands
    each fit a segment and are not inline: tshark shows a command split over
    segments once in each, and an inline one not at all."""
    out = subprocess.run(
        ["tshark", "-n", "-r", path, "-d", f"tcp.port=={REDIS_PORT},resp", "-Y",
         f"tcp.dstport=={REDIS_PORT} && resp", "-T", "fields", "-e", "resp.array.length"],
        capture_output=True, text=True)
    return sum(len(line.split(",")) for line in out.stdout.split("\n") if line.strip())


def lookup(doc, path):
    cur = doc
    for part in path.split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return cur


def main():
    pgrtt, capdir, name = sys.argv[1:4]
    checks = None
    with open(os.path.join(capdir, "EXPECTED")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            if fields[0] == name:
                checks = fields[1:]
    if checks is None:
        print(f"{name}: not in EXPECTED")
        return 1
    path = os.path.join(capdir, name)
    extra = ["--http-port", "18080"] if name.startswith(("web-", "http-")) else []
    if name.startswith("web-proxied"):  # nginx on 18081 in front of the app on 18080
        extra += ["--http-port", "18081"]
    if name.startswith("redis-"):
        extra = ["--redis-port", REDIS_PORT]
    pg_ports = (PORT,)
    if name.startswith("pooler-"):  # PgBouncer on 56432 in front of the server
        extra, pg_ports = ["-p", POOLER_PORT], (PORT, POOLER_PORT)
    proc = subprocess.run([pgrtt, "analyze", "-p", PORT, "-F", "json", "--no-progress"] + extra
                          + [path], capture_output=True, text=True)
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {}
    need_tshark = any("tshark" in c for c in checks)
    if need_tshark and not shutil.which("tshark"):
        print("tshark not installed: skipped")
        return 77
    tshark = tshark_rfq(path, pg_ports) if need_tshark else None
    tls_streams = tshark_tls_streams(path) if any("tshark_tls" in c for c in checks) else None
    redis_cmds = (tshark_redis_commands(path) if any("tshark_redis" in c for c in checks)
                  else None)
    failed = 0
    for c in checks:
        m = re.match(r"([\w.\[\]:]+?)(>=|=|>|~|@)(.*)$", c)
        key, op, want = m.groups()
        if key == "exit":
            got = proc.returncode
        else:
            try:
                got = lookup(doc, key)
            except (KeyError, IndexError, TypeError):
                got = None
        if want == "tshark":
            want_v = tshark
        elif want == "tshark_tls":
            want_v = tls_streams
        elif want == "tshark_redis":
            want_v = redis_cmds
        elif want in ("true", "false"):
            want_v = want == "true"
        elif op == "~":  # VALUE/PCT%: within PCT percent of VALUE (an estimate)
            v, pct = want.rstrip("%").split("/")
            want_v = (float(v), float(pct) / 100)
        elif op == "@":  # VALUE: an interval [lo, hi] that holds it
            want_v = float(want)
        elif re.fullmatch(r"-?\d+", want):
            want_v = int(want)
        else:
            want_v = want
        ok = {"=": lambda a, b: a == b or (isinstance(a, float) and isinstance(b, int)
                                           and abs(a - b) < 1e-6),
              ">=": lambda a, b: a is not None and a >= b,
              ">": lambda a, b: a is not None and a > b,
              "~": lambda a, b: a is not None and abs(a - b[0]) <= b[1] * abs(b[0]),
              "@": lambda a, b: isinstance(a, list) and len(a) == 2 and a[0] <= b <= a[1]}[op](
                  got, want_v)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {key} {op} {want} (want {want_v!r}, got {got!r})")
        failed += not ok
    if proc.returncode not in (0, 3) and not any(c.startswith("exit=") for c in checks):
        print(f"FAIL {name}: pgrtt exited {proc.returncode}: {proc.stderr.strip()}")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
