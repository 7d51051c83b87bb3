#!/usr/bin/python3
"""hostile.py HTTP_PORT - requests whose methods and paths try to break
pgrtt's outputs: markup, Markdown table cells, spreadsheet formulas, GitHub
workflow commands.  Each path is looked up by the blog app (one query each,
the path as a bound value); the odd method is answered 501.  Prints what
it sent, one request per line, then sent=N."""
import http.client
import sys

port = int(sys.argv[1])
REQUESTS = [
    ("GET", "/<script>alert(1)</script>"),
    ("GET", "/a|0.10|b|`x`|![i](http://127.0.0.1/i.png)"),
    ("GET", '/=HYPERLINK("http://127.0.0.1/x","y")'),
    ("GET", "/::error::forged%0A::error::again"),
    ("GET", "/%0D%0A-2+3"),
    ("+cmd|'calc'!A0", "/x"),
    ("GET", "/@SUM(1+1)*cmd|'/Ccalc'!A0"),
]
for method, path in REQUESTS:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.putrequest(method, path, skip_accept_encoding=True)
    c.endheaders()
    r = c.getresponse()
    r.read()
    print(f"{method} {path} -> {r.status}")
    c.close()
print(f"sent={len(REQUESTS)}")
