#!/usr/bin/python3
"""asyncpg_tls.py PORT N tls|plain - N queries through asyncpg on one
connection to the cluster on 127.0.0.1:PORT, over TLS (Python's ssl writes
the secrets to $SSLKEYLOGFILE) or in plaintext: the client's side of
tests/live/tls_keylog_test.py."""
import asyncio
import ssl
import sys

import asyncpg


async def main(port, n, tls):
    ctx = None
    if tls:
        ctx = ssl.create_default_context()  # it honours SSLKEYLOGFILE
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # the throwaway cluster's own certificate
    c = await asyncpg.connect(host="127.0.0.1", port=port, user="postgres", database="postgres",
                              ssl=ctx if tls else False)
    for i in range(n):
        await c.fetchval("SELECT $1::int + 1", i)
    await c.close()


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "tls"))
