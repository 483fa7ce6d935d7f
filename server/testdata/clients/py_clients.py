"""Uploads a body the server's handler does not read, with Python's requests,
httpx and aiohttp, then sends a second request: each must get the response
whole, with no reset, no broken pipe and no retry. Usage: py_clients.py URL SIZE STATUS"""
import asyncio
import sys

import aiohttp
import httpx
import requests

url, size, status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = b"x" * size
failed = []


def check(name, got_status, got_body, want_status):
    if got_status != want_status:
        failed.append(f"{name}: status {got_status}, want {want_status}")
    elif want_status == 200 and got_body != b"Hello, Go!":
        failed.append(f"{name}: body {got_body[:40]!r}")
    else:
        print(f"ok {name}")


def run(name, fn, want):
    try:
        got_status, got_body = fn()
        check(name, got_status, got_body, want)
    except Exception as e:  # the point of the test: report, never crash
        failed.append(f"{name}: {type(e).__name__}: {e}")


with requests.Session() as s:
    run("requests upload", lambda: (lambda r: (r.status_code, r.content))(s.post(url, data=body)), status)
    run("requests next", lambda: (lambda r: (r.status_code, r.content))(s.get(url)), 200)

with httpx.Client() as c:
    run("httpx upload", lambda: (lambda r: (r.status_code, r.content))(c.post(url, content=body)), status)
    run("httpx next", lambda: (lambda r: (r.status_code, r.content))(c.get(url)), 200)


async def aio():
    async with aiohttp.ClientSession() as s:
        for name, kw in (("aiohttp upload", {}), ("aiohttp upload expect100", {"expect100": True})):
            try:
                async with s.post(url, data=body, **kw) as r:
                    check(name, r.status, await r.read(), status)
            except Exception as e:
                failed.append(f"{name}: {type(e).__name__}: {e}")
        try:
            async with s.get(url) as r:
                check("aiohttp next", r.status, await r.read(), 200)
        except Exception as e:
            failed.append(f"aiohttp next: {type(e).__name__}: {e}")


asyncio.run(aio())
for f in failed:
    print("FAIL", f)
sys.exit(1 if failed else 0)
