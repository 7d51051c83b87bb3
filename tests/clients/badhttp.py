#!/usr/bin/python3
"""badhttp.py HTTP_PORT - what pgrtt must report as not decodable on an HTTP
port: an HTTP/2 prior-knowledge preface, a TLS ClientHello, a malformed
request line; then one good request so the capture has a page too."""
import socket
import sys

port = int(sys.argv[1])


def send(data):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(data)
    s.settimeout(2)
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    s.close()


send(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
send(b"\x16\x03\x01\x00\x2f\x01\x00\x00\x2b\x03\x03" + bytes(38))
send(b"GET\r\n\r\n")
send(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print("sent=4")
