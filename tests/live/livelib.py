"""livelib.py - what the live tests share: a free loopback port and waiting
for a server on one, a database with the seed's dataset, and tcpdump around
a piece of load."""
import os
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, tries=100):
    """Until something accepts connections on 127.0.0.1:port (tries of
    0.1 s): True, or False when nothing did."""
    for _ in range(tries):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


RELAY_ADDR = "127.0.0.5"  # a relay's; the servers the tests start listen on 127.0.0.1


def start_relay(port):
    """tests/clients/relay.py on RELAY_ADDR:port to 127.0.0.1:port, as
    docker-proxy publishes a container's port: both legs of every
    connection on one server port.  Its Popen, and whether it said it
    listens."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.Popen(["/usr/bin/python3", os.path.join(tests, "clients", "relay.py"),
                          RELAY_ADDR, str(port), "127.0.0.1", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return p, p.stdout.readline().strip() == "ready"


def blog_database(port, name, blogload):
    """A fresh database NAME on the test cluster with the seed's dataset
    (bench/blogload); its libpq DSN, or None if the load failed."""
    env = dict(os.environ, PGHOST="127.0.0.1", PGPORT=str(port), PGUSER="postgres",
               PGSSLMODE="disable")
    subprocess.run(["psql", "-qAt", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {name}",
                    "-c", f"CREATE DATABASE {name}"], env=env, check=True, capture_output=True)
    dsn = f"host=127.0.0.1 port={port} user=postgres dbname={name} sslmode=disable"
    return dsn if subprocess.run([blogload, dsn], capture_output=True).returncode == 0 else None


def capture(pcap, ports, fn, immediate=True):
    """Run fn() while tcpdump writes pcap (tcp on any of ports, on lo);
    tcpdump's stderr (its drop counts) goes to pcap + ".err".  Returns what
    fn returned.

    Immediate mode (every packet written as it comes: all of it on disk
    when tcpdump is stopped) takes a ring of fixed-size frames, each as big
    as the loopback MTU: 64 MiB held about 1,000 packets, and an r2d2 app
    under 8 clients overran it in all three tries of a CI run (208
    dropped).  So 256 MiB, and tcpdump ahead of the load for CPU.
    immediate=False: tcpdump fills its buffer before it writes, as it must
    under a load that takes every CPU (one write per packet drops packets)."""
    err = pcap + ".err"
    quick = ["-U", "--immediate-mode"] if immediate else []
    expr = " or ".join(f"tcp port {p}" for p in ports)
    with open(err, "w") as e:
        td = subprocess.Popen(["nice", "-n", "-10", "tcpdump", "-i", "lo", "-s", "0", "-B",
                               "262144"] + quick + ["-Z", "root", "-w", pcap, expr],
                              stdout=subprocess.DEVNULL, stderr=e)
    for _ in range(100):
        if "listening" in open(err).read():
            break
        time.sleep(0.05)
    try:
        return fn()
    finally:
        time.sleep(0.5)
        td.send_signal(signal.SIGINT)
        td.wait(timeout=30)
