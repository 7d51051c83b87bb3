#!/usr/bin/python3
"""relay.py LISTEN-ADDR PORT TARGET-ADDR TARGET-PORT - a TCP relay, as
Docker's docker-proxy publishes a container's port (or an SSH tunnel
forwards one): each connection accepted on LISTEN-ADDR:PORT gets one of its
own to TARGET-ADDR:TARGET-PORT, and the bytes are copied both ways as they
come.  With the same port at two loopback addresses, both legs of every
connection are on one server port.  Prints "ready" once it listens; runs
until it is killed."""
import socket
import sys
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    listen = (sys.argv[1], int(sys.argv[2]))
    target = (sys.argv[3], int(sys.argv[4]))
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(listen)
    srv.listen(64)
    print("ready", flush=True)
    while True:
        client, _ = srv.accept()
        try:
            upstream = socket.create_connection(target)
        except OSError:
            client.close()
            continue
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


if __name__ == "__main__":
    main()
