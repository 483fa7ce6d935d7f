"""Python's websockets library against a gust WebSocket echo server.

Usage: py_websockets.py URL deflate|plain

Echoes text (with non-ASCII), binary and a 300 kB message, pings, then
asks the server to close ("close" -> code 4000) and prints one line:
"ok extensions=... close=CODE". Any mismatch raises (exit status 1).
"""
import asyncio
import ssl
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def main(url, mode):
    kw = {"compression": "deflate" if mode == "deflate" else None, "max_size": 1 << 22}
    if url.startswith("wss:"):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # the test server's own certificate
        kw["ssl"] = ctx
    async with connect(url, **kw) as ws:
        for msg in ["héllo, wörld", bytes(range(256)) * 100, "x" * 300_000, b""]:
            await ws.send(msg)
            got = await asyncio.wait_for(ws.recv(), 10)
            assert got == msg and type(got) is type(msg), (type(got), len(got))
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 10)
        exts = ",".join(e.name for e in ws.protocol.extensions) or "none"
        await ws.send("close")
        try:
            await asyncio.wait_for(ws.recv(), 10)
            raise AssertionError("the server did not close")
        except ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd else None
    print(f"ok extensions={exts} close={code}")


asyncio.run(main(sys.argv[1], sys.argv[2]))
