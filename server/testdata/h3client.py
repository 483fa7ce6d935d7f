"""An HTTP/3 client on aioquic (QUIC and HTTP/3 in Python, independent of
gust's) for server/h3_aioquic_linux_test.go.

Usage: python3 h3client.py HOST PORT CA_FILE SERVER_NAME [ECHO_SIZE]

On one QUIC connection, verifying the server's certificate against CA_FILE
for SERVER_NAME, it asks the routes of server/h3_clients_linux_test.go for:
GET /hello?x=1 (with X-Test: yes), POST /echo with 100,000 bytes (byte i
being i mod 251, with X-Want-Trailer), GET /stream (asking for /release on
another stream once "part 0" is in, so the rest comes only after), and 20
GETs of /hello?n=I at once. It prints one JSON object with what it got;
a failure is an "error" in it. With ECHO_SIZE it only POSTs that many
bytes to /echo and reports what came back ("echo").
"""

import asyncio
import hashlib
import json
import ssl
import sys

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamReset

# Every wait on the server is bounded by this many seconds.
WAIT = 15.0


class Response:
    """What came back on one request stream."""

    def __init__(self):
        self.headers = None
        self.trailers = None
        self.chunks = []
        self.ended = False
        self.reset = None
        self.changed = asyncio.Event()

    def body(self):
        return b"".join(self.chunks)

    async def until(self, what, cond):
        """Waits (bounded) until cond() holds after some event."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while not cond():
            if self.reset is not None:
                raise RuntimeError(f"{what}: stream reset with code {self.reset}")
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"{what}: nothing within {WAIT} s")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def done(self, what):
        await self.until(what, lambda: self.ended)
        return self


def header_dict(headers):
    out = {}
    for name, value in headers or []:
        k, v = name.decode(), value.decode()
        out[k] = out[k] + ", " + v if k in out else v
    return out


class Client(QuicConnectionProtocol):
    """A QUIC connection with an H3Connection over it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.responses = {}
        self.authority = b""
        self.closed = None

    def quic_event_received(self, event):
        if isinstance(event, ConnectionTerminated):
            self.closed = f"code {event.error_code}: {event.reason_phrase}"
            for r in self.responses.values():
                r.changed.set()
        if isinstance(event, StreamReset) and event.stream_id in self.responses:
            r = self.responses[event.stream_id]
            r.reset = event.error_code
            r.changed.set()
        for ev in self.h3.handle_event(event):
            r = self.responses.get(getattr(ev, "stream_id", None))
            if r is None:
                continue
            if isinstance(ev, HeadersReceived):
                if r.headers is None:
                    r.headers = ev.headers
                else:
                    r.trailers = ev.headers
            elif isinstance(ev, DataReceived) and ev.data:
                r.chunks.append(ev.data)
            if getattr(ev, "stream_ended", False):
                r.ended = True
            r.changed.set()

    def request(self, method, path, body=b"", headers=()):
        sid = self._quic.get_next_available_stream_id()
        fields = [
            (b":method", method.encode()),
            (b":scheme", b"https"),
            (b":authority", self.authority),
            (b":path", path.encode()),
            (b"user-agent", b"aioquic h3client.py"),
        ] + [(k.encode(), v.encode()) for k, v in headers]
        if body:
            fields.append((b"content-length", str(len(body)).encode()))
        r = Response()
        self.responses[sid] = r
        self.h3.send_headers(sid, fields, end_stream=not body)
        if body:
            self.h3.send_data(sid, body, end_stream=True)
        self.transmit()
        return r


def status(r):
    return int(header_dict(r.headers).get(":status", "0"))


async def echo(client, out, size):
    body = bytes(i % 251 for i in range(size))
    r = client.request("POST", "/echo", body)
    try:
        await r.done(f"POST /echo of {size} bytes")
    finally:
        back = r.body()
        out["echo"] = {"status": status(r) if r.headers else 0, "len": len(back), "same": back == body}


async def run(client, out):
    r = await client.request("GET", "/hello?x=1", headers=[("x-test", "yes")]).done("GET /hello")
    out["hello"] = {"status": status(r), "headers": header_dict(r.headers), "body": r.body().decode()}

    body = bytes(i % 251 for i in range(100_000))
    r = await client.request("POST", "/echo", body, headers=[("x-want-trailer", "1")]).done("POST /echo")
    back = r.body()
    out["echo"] = {
        "status": status(r),
        "headers": header_dict(r.headers),
        "len": len(back),
        "sha256": hashlib.sha256(back).hexdigest(),
        "same": back == body,
        "trailers": header_dict(r.trailers),
    }

    stream = client.request("GET", "/stream")
    await stream.until("GET /stream, part 0", lambda: b"part 0\n" in stream.body() or stream.ended)
    before = stream.body().decode()
    ended_before = stream.ended
    rel = await client.request("GET", "/release").done("GET /release")
    await stream.done("GET /stream, the rest")
    out["stream"] = {
        "status": status(stream),
        "headers": header_dict(stream.headers),
        "before_release": before,
        "ended_before_release": ended_before,
        "body": stream.body().decode(),
        "chunks": len(stream.chunks),
        "release_status": status(rel),
    }

    many = [client.request("GET", f"/hello?n={i}") for i in range(20)]
    for i, r in enumerate(many):
        await r.done(f"GET /hello?n={i}")
    out["many"] = [r.body().decode() for r in many]


async def main():
    host, port, ca, server_name = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name=server_name)
    config.verify_mode = ssl.CERT_REQUIRED
    config.load_verify_locations(cafile=ca)
    out = {}
    try:
        async with connect(host, port, configuration=config, create_protocol=Client, wait_connected=True) as client:
            client.authority = f"{server_name}:{port}".encode()
            out["alpn"] = client._quic.tls.alpn_negotiated
            try:
                if len(sys.argv) > 5:
                    await echo(client, out, int(sys.argv[5]))
                else:
                    await run(client, out)
            finally:
                if client.closed:
                    out["closed"] = client.closed
                settings = getattr(client.h3, "received_settings", None)
                if settings is not None:
                    out["settings"] = {str(int(k)): v for k, v in settings.items()}
    except Exception as e:  # reported in the JSON, for the test to show
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(), 4 * WAIT))
