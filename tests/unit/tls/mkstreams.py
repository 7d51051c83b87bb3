#!/usr/bin/python3
"""mkstreams.py PCAP SERVER_PORT - the TCP payloads of the one connection in
PCAP, in capture order, as the TLS tests read them: a line per segment,
'c ' (the client's) or 's ' (the server's) and its bytes in hex (tshark
reads the capture)."""
import subprocess
import sys

pcap, port = sys.argv[1], sys.argv[2]
out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "tcp.srcport", "-e",
                      "tcp.payload", "-Y", "tcp.len > 0"], capture_output=True, text=True,
                     check=True).stdout
for line in out.splitlines():
    src, _, payload = line.partition("\t")
    print("s" if src == port else "c", payload.replace(":", ""))
