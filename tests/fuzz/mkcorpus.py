#!/usr/bin/python3
"""mkcorpus.py OUTDIR PORT CAPTURE... - seeds for fuzz_pgsql in its own input
format (see tests/fuzz/fuzz_pgsql.c): each capture's busiest PostgreSQL
connection on PORT, segment by segment in capture order, the client's bytes
as frontend records and the server's as backend records.  Ethernet, Linux
cooked (v1) and raw-IP captures, pcap or (through editcap) pcapng; IPv4 and
IPv6; at most 64 KiB a seed."""
import os
import struct
import subprocess
import sys


def frames(path):
    data = open(path, "rb").read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":  # pcapng: let editcap (wireshark-common) convert it
        data = subprocess.run(["editcap", "-F", "pcap", path, "-"], capture_output=True,
                              check=True).stdout
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        yield linktype, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def tcp(linktype, f):
    if linktype == 1:
        ethertype, ip = struct.unpack("!H", f[12:14])[0], f[14:]
    elif linktype == 113:
        ethertype, ip = struct.unpack("!H", f[14:16])[0], f[16:]
    elif linktype == 101:
        ethertype, ip = (0x0800 if f[0] >> 4 == 4 else 0x86DD), f
    else:
        return None
    if ethertype == 0x0800 and len(ip) >= 20 and ip[9] == 6:
        ihl = (ip[0] & 15) * 4
        seg, ends = ip[ihl:struct.unpack("!H", ip[2:4])[0]], (ip[12:16], ip[16:20])
    elif ethertype == 0x86DD and len(ip) >= 40 and ip[6] == 6:
        seg, ends = ip[40:40 + struct.unpack("!H", ip[4:6])[0]], (ip[8:24], ip[24:40])
    else:
        return None
    if len(seg) < 20:
        return None
    sport, dport, _, _, off_flags = struct.unpack("!HHIIH", seg[:14])
    return sport, dport, ends, (off_flags & 0x02) != 0, seg[(off_flags >> 12) * 4:]


def seed(path, port):
    conns = {}  # key -> [seen from its SYN, records]
    for lt, f in frames(path):
        t = tcp(lt, f)
        if not t or port not in (t[0], t[1]):
            continue
        sport, dport, ends, is_syn, payload = t
        key = (ends, sport, dport) if dport == port else ((ends[1], ends[0]), dport, sport)
        c = conns.setdefault(key, [is_syn, bytearray()])
        for i in range(0, len(payload), 65535):
            chunk = payload[i:i + 65535]
            c[1] += struct.pack("!BH", 1 if sport == port else 0, len(chunk)) + chunk
    syn, out = max(conns.values(), key=lambda c: len(c[1]))
    return bytes([1 if syn else 0]) + bytes(out[:65536])


def main():
    outdir, port = sys.argv[1], int(sys.argv[2])
    os.makedirs(outdir, exist_ok=True)
    for cap in sys.argv[3:]:
        name = os.path.splitext(os.path.basename(cap))[0]
        open(os.path.join(outdir, name), "wb").write(seed(cap, port))


if __name__ == "__main__":
    main()
