#!/usr/bin/python3
"""tls_keylog_test.py PGRTT SRCDIR - a TLS connection counted with its key log
(issue 46): a throwaway cluster with ssl = on (tests/pg_cluster.sh), asyncpg
sending 40 queries over TLS 1.3 with SSLKEYLOGFILE set, and the same 40 in
plaintext, both captured by tcpdump.  With --tls-keylog the TLS capture
counts what the plaintext one counts, and what tshark counts with the same
key log; without it, or with a key log of other connections, it is
encrypted and nothing is counted, never 0."""
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
from checklib import check, finish, skip  # noqa: E402
from livelib import free_port  # noqa: E402

PGRTT, SRC = (os.path.abspath(a) for a in sys.argv[1:3])
N = 40


def analyze(pcap, port, *extra):
    p = subprocess.run([PGRTT, "analyze", "-F", "json", "--no-progress", "-p", str(port)] +
                       list(extra) + [pcap], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout) if p.stdout.strip() else {}, p.stderr


def captured(tmp, name, port, client_args, env=None):
    pcap = os.path.join(tmp, name + ".pcap")
    cap = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "--immediate-mode", "-w", pcap,
                            f"tcp port {port}"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cap.stderr.readline()  # listening ...
    time.sleep(1)  # ... and the ring is the kernel's: the client's first packet is captured
    try:
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "clients",
                                                         "asyncpg_tls.py"), str(port), str(N)] +
                       client_args, check=True, env=env, timeout=60)
        time.sleep(0.5)
    finally:
        cap.terminate()
        cap.wait()
    return pcap


def main():
    for tool in ("tcpdump", "tshark"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    if importlib.util.find_spec("asyncpg") is None:
        skip("no python3-asyncpg")
    tmp = tempfile.mkdtemp(prefix="pgrtt-tls-")
    os.chmod(tmp, 0o755)  # the cluster's owner, postgres, goes through it
    port = free_port()
    cluster = os.path.join(tmp, "pg")
    script = os.path.join(SRC, "tests", "pg_cluster.sh")
    if subprocess.run([script, "start", cluster, str(port)], capture_output=True).returncode:
        skip("no throwaway cluster (tests/pg_cluster.sh)")
    try:
        keys = os.path.join(tmp, "keys.txt")
        for _ in range(3):  # again where tcpdump lost a packet (a gap: not the test's)
            if os.path.exists(keys):
                os.unlink(keys)
            tls = captured(tmp, "tls", port, ["tls"], dict(os.environ, SSLKEYLOGFILE=keys))
            plain = captured(tmp, "plain", port, ["plain"])
            os.chmod(keys, 0o600)
            _, p, _ = analyze(plain, port)
            _, d, _ = analyze(tls, port, "--tls-keylog", keys)
            lost = [w["code"] for w in p.get("warnings", []) + d.get("warnings", [])
                    if w["code"] in ("gaps", "drops")]
            if not lost:
                break
        want = p.get("totals", {})
        check("plaintext: the client's 40 queries", want.get("by_class", {}).get("query"), N)
        rc, d, err = analyze(tls, port, "--tls-keylog", keys)
        got = d.get("totals", {})
        check("TLS with its key log: exit", rc, 0)
        check("... what the plaintext run counts",
              (got.get("ready_for_query"), got.get("round_trips"), got.get("by_class")),
              (want.get("ready_for_query"), want.get("round_trips"), want.get("by_class")))
        conns = d.get("connections", [])
        check("... its connection read: TLS, decrypted",
              [(c.get("tls"), c.get("round_trips")) for c in conns],
              [("ssl", want.get("round_trips"))])
        check("... no finding but notes", [w["code"] for w in d.get("warnings", [])
                                           if w["severity"] != "note"], [])
        secret = [ln.split()[2] for ln in open(keys) if ln.startswith("CLIENT_TRAFFIC")][0]
        check("... the key log said, its secrets never", ("5 TLS secrets" in err, secret in err),
              (True, False))
        t = subprocess.run(["tshark", "-r", tls, "-o", f"tls.keylog_file:{keys}", "-d",
                            f"tcp.port=={port},pgsql", "-T", "fields", "-e", "pgsql.type"],
                           capture_output=True, text=True).stdout
        check("... and tshark with the same key log", t.count("Ready for query"),
              got.get("ready_for_query"))
        rc, d, _ = analyze(tls, port)
        check("TLS without a key log: encrypted, nothing counted (a finding, not 0)",
              (rc, [w["code"] for w in d.get("warnings", [])]),
              (0, ["no-round-trips", "encrypted"]))
        other = os.path.join(tmp, "other.txt")
        with open(other, "w") as f:
            f.write("CLIENT_TRAFFIC_SECRET_0 " + "00" * 32 + " " + "11" * 32 + "\n")
        os.chmod(other, 0o644)
        rc, d, err = analyze(tls, port, "--tls-keylog", other)
        check("a key log of other connections: encrypted, and a world-readable one warned of",
              (rc, "encrypted" in [w["code"] for w in d.get("warnings", [])],
               "can be read by anyone" in err), (0, True, True))
        rc, _, err = analyze(tls, port, "--tls-keylog", os.path.join(tmp, "none.txt"))
        check("a key log that is not there: exit 2, said", (rc, "none.txt" in err), (2, True))
        os.chmod(keys, stat.S_IRUSR | stat.S_IWUSR)
    finally:
        subprocess.run([script, "stop", cluster, str(port)], capture_output=True)
    return finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
