"""Calls every method of gust.echo.Echo with Python's grpcio, the stubs made
from the .proto by grpcio-tools at start: a unary call, a server stream of
three, a client stream of four counted, and a bidirectional stream played
as ping-pong (each message sent only once the one before came back, so a
server that held its answers to the end would hang until the deadline).
With CERT it speaks TLS and trusts that certificate alone.
Usage: py_grpc.py HOST:PORT PROTO [CERT]"""
import os
import queue
import sys
import tempfile

import grpc
from grpc_tools import protoc
import importlib.resources

target, proto = sys.argv[1], sys.argv[2]
cert = sys.argv[3] if len(sys.argv) > 3 else None

out = tempfile.mkdtemp()
include = str(importlib.resources.files("grpc_tools") / "_proto")
if protoc.main(["protoc", "-I" + os.path.dirname(os.path.abspath(proto)), "-I" + include,
                "--python_out=" + out, "--grpc_python_out=" + out, os.path.basename(proto)]) != 0:
    sys.exit("protoc failed on " + proto)
sys.path.insert(0, out)
stem = os.path.splitext(os.path.basename(proto))[0]
pb = __import__(stem + "_pb2")
pb_grpc = __import__(stem + "_pb2_grpc")

if cert:
    with open(cert, "rb") as f:
        channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=f.read()))
else:
    channel = grpc.insecure_channel(target)
stub = pb_grpc.EchoStub(channel)
failed = []


def unary():
    r = stub.Unary(pb.Msg(data=b"hi"), timeout=10)
    assert r.data == b"hi", r


def server_stream():
    got = [m.data for m in stub.ServerStream(pb.Msg(data=b"x", count=3), timeout=10)]
    assert got == [b"x"] * 3, got


def client_stream():
    r = stub.ClientStream(iter([pb.Msg(data=b"a")] * 4), timeout=10)
    assert r.count == 4, r


def bidi():
    want = [b"one", b"two", b"three"]
    q = queue.Queue()
    q.put(want[0])

    def requests():
        while True:
            m = q.get()
            if m is None:
                return
            yield pb.Msg(data=m)

    got = []
    for r in stub.Bidi(requests(), timeout=10):
        got.append(r.data)
        q.put(want[len(got)] if len(got) < len(want) else None)
    assert got == want, got


for name, fn in (("unary", unary), ("server stream", server_stream), ("client stream", client_stream), ("bidi", bidi)):
    try:
        fn()
        print("ok " + name)
    except Exception as e:  # report every call, never stop at the first
        failed.append(f"{name}: {type(e).__name__}: {e}")
channel.close()
if failed:
    print("\n".join(failed), file=sys.stderr)
    sys.exit(1)
