"""livelib.py - what the live tests share: a free loopback port, and
tcpdump around a piece of load."""
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
