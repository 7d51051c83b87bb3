#!/usr/bin/python3
"""relink.py IN.pcap OUT.pcap KIND - rewrite an Ethernet pcap to another link
layer, packet for packet, so pgrtt's link-type decoding is tested on the same
traffic: raw (LINKTYPE_RAW, IP only), null (BSD loopback, host-order AF),
loop (OpenBSD loopback, network-order AF), vlan (802.1Q tag, VID 42, inside
Ethernet), ip6ext (IPv6 packets get a Destination Options extension
header before TCP), user0 (LINKTYPE_USER0: unsupported, for the error path)."""
import struct
import sys

LINKTYPES = {"raw": 101, "null": 0, "loop": 108, "vlan": 1, "ip6ext": 1, "user0": 147}


def convert(frame, kind):
    ethertype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if kind == "raw":
        return ip
    af = 2 if ethertype == 0x0800 else 30 if ethertype == 0x86DD else 0
    if kind == "null":
        return struct.pack("<I", af) + ip
    if kind == "loop":
        return struct.pack("!I", af) + ip
    if kind == "vlan":
        return frame[:12] + struct.pack("!HH", 0x8100, 42) + frame[12:]
    if kind == "ip6ext" and ethertype == 0x86DD:
        # next header 60 (destination options), payload length + 8, then an
        # 8-byte header: next header 6 (TCP), length 0, PadN option of 4 bytes
        nh = ip[6]
        plen = struct.unpack("!H", ip[4:6])[0]
        hdr = ip[:4] + struct.pack("!H", plen + 8) + bytes([60]) + ip[7:40]
        ext = bytes([nh, 0, 1, 4, 0, 0, 0, 0])
        return frame[:14] + hdr + ext + ip[40:]
    return frame


def main():
    src, dst, kind = sys.argv[1:4]
    data = open(src, "rb").read()
    magic, vmaj, vmin, zone, sig, snap, lt = struct.unpack("<IHHiIII", data[:24])
    assert magic in (0xA1B2C3D4, 0xA1B23C4D) and lt == 1, "little-endian Ethernet pcap expected"
    out = [struct.pack("<IHHiIII", magic, vmaj, vmin, zone, sig, snap, LINKTYPES[kind])]
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, wirelen = struct.unpack("<IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        new = convert(frame, kind)
        delta = len(new) - len(frame)
        out.append(struct.pack("<IIII", sec, frac, len(new), wirelen + delta) + new)
    open(dst, "wb").write(b"".join(out))


if __name__ == "__main__":
    main()
