#!/usr/bin/python3
"""mkstreams.py PCAP SERVER_PORT - the TCP payload of each direction of the one
connection in PCAP, in order, as test_tls_crypt.c reads it: a line per
direction, 'c ' or 's ' and the bytes in hex (tshark reads the capture)."""
import subprocess
import sys

pcap, port = sys.argv[1], sys.argv[2]
out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "tcp.srcport", "-e",
                      "tcp.payload", "-Y", "tcp.len > 0"], capture_output=True, text=True,
                     check=True).stdout
streams = {"c": "", "s": ""}
for line in out.splitlines():
    src, _, payload = line.partition("\t")
    streams["s" if src == port else "c"] += payload.replace(":", "")
for side in ("c", "s"):
    print(side, streams[side])
