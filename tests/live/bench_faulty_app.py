#!/usr/bin/python3
"""bench_faulty_app.py MODE - an app pgrtt bench must survive (issue 44),
serving every path on PORT:
  trickle   a status line, then a byte every 4 s, never the end
  chunked   pages that are not the reference's, chunked, and the
            connection kept open past Connection: close
  daemon    the pages of 'chunked', after starting `sleep` in a session of
            its own (setsid), its pid written to $DAEMON_PID"""
import http.server
import os
import socket
import subprocess
import sys
import time

MODE = sys.argv[1]
if MODE == "daemon":
    d = subprocess.Popen(["setsid", "sleep", "600"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    open(os.environ["DAEMON_PID"], "w").write(str(d.pid))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if MODE == "trickle":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            self.wfile.flush()
            while True:
                time.sleep(4)
                self.wfile.write(b"x")
                self.wfile.flush()
        body = b"<!DOCTYPE html>\n<html><head><title>Chunked & not the blog</title>\n" * 40
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i in range(0, len(body), 700):
            part = body[i:i + 700]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = False  # and ignores Connection: close


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


Server(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
