#!/usr/bin/python3
"""bench_bad_app.py - an app whose pages are not the reference's: pgrtt
bench must stop at its HTML check (exit 1, the first differing line) and
leave nothing behind.  Serves one wrong page for every path on PORT."""
import http.server
import os


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = b"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Not the blog</title>\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
