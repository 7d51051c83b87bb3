#!/usr/bin/python3
"""redis_live_test.py PGRTT SRCDIR [HIREDISCLIENT] - Redis round trips live
(issue 13): a throwaway redis-server on a free loopback port, `pgrtt capture
-i lo --redis-port` around redis-benchmark (-P 1, -P 16) and redis-py
(Debian's python3-redis: a pipeline, MULTI/EXEC, pub/sub), checked against
what the clients know they sent, the server's own INFO commandstats, `pgrtt
analyze` of the capture's -w file and tshark's RESP dissector on it; then
tests/clients/hiredisclient.c (libhiredis: redisAppendCommand pipelines, a
transaction, a 200 KiB value) the same way; then redis-benchmark through
a relay on the server's own port at another address (tests/clients/relay.py,
as docker-proxy publishes a container's port): both legs on --redis-port,
the totals both legs', the warning redis-legs naming the two endpoints, and
the filter it gives keeping the benchmark's own; then the same load with
the wrong --redis-port: said, not zero."""
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
from checklib import check, failures, required, skip  # noqa: E402
from livelib import RELAY_ADDR, free_port, start_relay  # noqa: E402

PGRTT, SRC = (os.path.abspath(a) for a in sys.argv[1:3])
HIREDIS = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "none" else None


def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + list(args), capture_output=True,
                          text=True, check=True).stdout


def commandstats(port):
    return {k: int(v) for k, v in re.findall(r"cmdstat_([a-z|]+):calls=(\d+)",
                                               cli(port, "info", "commandstats"))}


def tshark_commands(pcap, port):
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-d", f"tcp.port=={port},resp", "-Y",
                          f"tcp.dstport=={port} && resp", "-T", "fields", "-e",
                          "resp.array.length"], capture_output=True, text=True).stdout
    return sum(len(line.split(",")) for line in out.split("\n") if line.strip())


def under_capture(args, load, metrics=None):
    """pgrtt capture around load(), stopped by SIGINT once the load is done
    (a fixed --duration was short of a slow run's load: a CI run's -w file
    lacked redis-py's part); its JSON and stderr.  metrics: a dict that
    gets /metrics' samples (name: value) as the load has ended"""
    extra = []
    if metrics is not None:
        mport = free_port()
        extra = ["--metrics", f"127.0.0.1:{mport}"]
    cap = subprocess.Popen([PGRTT, "capture", "-i", "lo", "-B", "65536", "--duration", "120",
                            "--no-status", "-F", "json"] + extra + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    # its first line says the handle is open and filtering: a load begun
    # before that would go uncounted
    first = cap.stderr.readline()
    try:
        load()
    finally:
        time.sleep(0.5)  # the last replies through the ring
        for _ in range(20 if metrics is not None else 0):  # until two scrapes agree
            body = urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics",
                                          timeout=10).read().decode()
            now = {}  # Redis's samples: other tests' traffic on lo moves the rest
            for line in body.splitlines():
                if line.startswith("pgrtt_redis_"):
                    name, _, value = line.rpartition(" ")
                    now[name.split("{")[0]] = float(value)
            if now == metrics:
                break
            metrics.clear()
            metrics.update(now)
            time.sleep(0.3)
        cap.send_signal(signal.SIGINT)
    out, err = cap.communicate(timeout=60)
    return cap.returncode, json.loads(out) if out.strip() else {}, first + err


def main():
    if not shutil.which("redis-server"):
        skip("no redis-server")
    tmp = tempfile.mkdtemp(prefix="pgrtt-redislive-")
    port, pg = free_port(), free_port()
    srv = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save",
                            "", "--appendonly", "no", "--dir", tmp], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            try:
                if cli(port, "ping").strip() == "PONG":
                    break
            except subprocess.CalledProcessError:
                pass
            time.sleep(0.1)
        cli(port, "config", "resetstat")

        server = {}

        def bench():
            for args in (["-n", "2000", "-c", "4", "-P", "1", "-t", "get,set"],
                         ["-n", "3200", "-c", "2", "-P", "16", "-t", "get"]):
                subprocess.run(["redis-benchmark", "-p", str(port), "-q"] + args, check=True,
                               capture_output=True)
            server.update(commandstats(port))  # one INFO: a command, a round trip
            subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "clients",
                                                             "redisclient.py"), str(port),
                            "redis-py"], check=True, capture_output=True)
        wfile = os.path.join(tmp, "w.pcap")
        scraped = {}
        rc, d, err = under_capture(["-p", str(pg), "--redis-port", str(port), "-w", wfile], bench,
                                   scraped)
        check("capture: exit", rc, 0)
        r = d.get("totals", {}).get("redis", {})
        check("/metrics counts the Redis round trips and commands as the run's totals",
              (scraped.get("pgrtt_redis_round_trips_total"),
               scraped.get("pgrtt_redis_commands_total")),
              (r.get("round_trips"), r.get("commands")))
        by = r.get("by_command", {})
        check("the server ran what the benchmark sent (commandstats)",
              (server.get("get"), server.get("set"), server.get("config|get")), (5200, 2000, 4))
        # redis-py's part (tests/clients/redisclient.py): GET 16, SET 6
        check("GET, SET and CONFIG counted as the server ran them, with redis-py's",
              (by.get("GET"), by.get("SET"), by.get("CONFIG")),
              (server.get("get", 0) + 16, server.get("set", 0) + 6, server.get("config|get", 0) + 1))
        check("redis-py's commands by name", (by.get("INCRBY"), by.get("PUBLISH"), by.get("MULTI"),
                                               by.get("EXEC"), by.get("SUBSCRIBE")), (3, 3, 1, 1, 1))
        # round trips: -P 1: one per request; -P 16: requests / 16; the
        # benchmark's CONFIG GET pair per run: one each; the INFO; redis-py: 20
        check("round trips: 4000 + 3200 / 16 + 2 + 1 + 20", r.get("round_trips"),
              4000 + 200 + 2 + 1 + 20)
        check("the pipelines: 200 of 16, redis-py's 10, 2 CONFIG pairs",
              (r.get("largest_pipeline"), r.get("pipelined_round_trips")), (16, 200 + 2 + 2))
        check("pub/sub messages are pushes, not replies", r.get("pushes"), 3)
        check("nothing unanswered, no damage", (r.get("unanswered"), r.get("gaps"),
                                                r.get("malformed")), (0, 0, 0))
        check("Redis measured, PostgreSQL absent: a note, not a failure",
              [w["code"] for w in d.get("warnings", [])], ["redis-only"])
        p = subprocess.run([PGRTT, "analyze", "-p", str(pg), "--redis-port", str(port), "-F",
                            "json", "--no-progress", wfile], capture_output=True, text=True)
        a = json.loads(p.stdout)["totals"]["redis"]
        check("analyze of the -w file says the same", (a["commands"], a["round_trips"],
                                                       a["by_command"]),
              (r.get("commands"), r.get("round_trips"), by))
        if shutil.which("tshark"):
            # the benchmark's commands each fit a segment; redis-py's 256 KiB
            # SET is shown by tshark once per segment it spans
            t = tshark_commands(wfile, port)
            check("tshark decodes as many commands (give or take the big SET's segments)",
                  0 <= t - r.get("commands", 0) <= 8, True)
        # on a terminal, the status line counts them as they come
        ts = os.path.join(tmp, "typescript")
        tty = subprocess.Popen(["script", "-qec", f"{PGRTT} capture -i lo -p {pg} --redis-port "
                                f"{port} --duration 3", ts], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL)
        time.sleep(1)
        subprocess.run(["redis-benchmark", "-p", str(port), "-q", "-n", "20000", "-c", "2", "-t",
                        "get"], capture_output=True)
        tty.wait(timeout=60)
        typed = open(ts, errors="replace").read()
        check("a terminal: the status line counts Redis round trips",
              bool(re.search(r"[1-9][0-9.]*[kM]? redis rt/s", typed)), True)
        # hiredis, as a C service pipelines: what the client knows it did,
        # against the capture and the server's commandstats
        if HIREDIS or required():
            check("the hiredis client is built (libhiredis-dev)", bool(HIREDIS), True)
        if HIREDIS:
            cli(port, "config", "resetstat")
            client = {}

            def hiredis():
                out = subprocess.run([HIREDIS, str(port)], capture_output=True, text=True,
                                     check=True).stdout
                client.update({k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", out)})
            hfile = os.path.join(tmp, "hiredis.pcap")
            rc, d, err = under_capture(["-p", str(pg), "--redis-port", str(port), "-w", hfile],
                                       hiredis)
            stats = commandstats(port)
            r = d.get("totals", {}).get("redis", {})
            by = r.get("by_command", {})
            check("hiredis: capture exit", rc, 0)
            check("hiredis: commands as the client sent them and the server ran them",
                  (r.get("commands"), r.get("commands")),
                  (client.get("commands"), sum(v for k, v in stats.items() if k != "config|resetstat")))
            check("hiredis: by name as the server ran them",
                  {k.lower(): v for k, v in by.items()},
                  {k: v for k, v in stats.items() if k != "config|resetstat"})
            check("hiredis: round trips, pipelines and the largest as the client made them",
                  (r.get("round_trips"), r.get("pipelined_round_trips"), r.get("largest_pipeline")),
                  (client.get("round_trips"), client.get("pipelined"), client.get("largest")))
            check("hiredis: nothing unanswered, no damage", (r.get("unanswered"), r.get("gaps"),
                                                             r.get("malformed")), (0, 0, 0))
            p = subprocess.run([PGRTT, "analyze", "-p", str(pg), "--redis-port", str(port), "-F",
                                "json", "--no-progress", hfile], capture_output=True, text=True)
            a = json.loads(p.stdout)["totals"]["redis"]
            check("hiredis: analyze of the -w file says the same",
                  (a["commands"], a["round_trips"], a["largest_pipeline"]),
                  (r.get("commands"), r.get("round_trips"), r.get("largest_pipeline")))
        relay, ready = start_relay(port)
        try:
            check("relay: ready", ready, True)
            rfile = os.path.join(tmp, "relay.pcap")
            rc, d, err = under_capture(
                ["-p", str(pg), "--redis-port", str(port), "-w", rfile],
                lambda: subprocess.run(["redis-benchmark", "-h", RELAY_ADDR, "-p", str(port),
                                        "-q", "-n", "2000", "-c", "4", "-P", "1", "-t",
                                        "get,set"], check=True, capture_output=True))
        finally:
            relay.terminate()
            relay.wait()
        w = next((w for w in d.get("warnings", []) if w["code"] == "redis-legs"), None)
        check("relay: capture says redis-legs, naming the two endpoints",
              ("[redis-legs]" in err, w is not None and
               f"Redis round trips to 127.0.0.1:{port} ran inside one to 127.0.0.5:{port}"
               in w["message"]), (True, True))
        # 4000 requests and the benchmark's CONFIG GET pair, on each leg
        check("relay: both legs in the totals", d.get("totals", {}).get("redis", {})
              .get("round_trips"), 2 * 4001)
        f = re.search(r"-f '(not \(.*?\))': the application's", w["message"] if w else "")
        check("relay: the warning gives the application's filter", f is not None, True)
        if f:
            p = subprocess.run([PGRTT, "analyze", "-p", str(pg), "--redis-port", str(port), "-F",
                                "json", "--no-progress", "-f", f.group(1), rfile],
                               capture_output=True, text=True)
            a = json.loads(p.stdout)
            check(f"relay: -f '{f.group(1)}': the benchmark's round trips, no redis-legs",
                  (a["totals"]["redis"]["round_trips"],
                   "redis-legs" in [w["code"] for w in a["warnings"]]), (4001, False))
        # the same load, the wrong port: said, and not read as no Redis at all
        rc, d, err = under_capture(["-p", str(pg), "--redis-port", str(free_port())], bench)
        check("wrong --redis-port: said", ("[no-redis]" in err,
                                           [w["code"] for w in d.get("warnings", [])]),
              (True, ["no-postgresql", "no-redis"]))
    finally:
        srv.terminate()
        srv.wait()
    if failures:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
