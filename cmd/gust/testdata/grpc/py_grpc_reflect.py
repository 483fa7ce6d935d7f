"""Describes gust.echo.Echo by server reflection with Python's
grpcio-reflection (its descriptor database asks grpc.reflection.v1alpha),
with no .proto file: the services listed, each method's stream kinds as
echo.proto declares them, then a unary call whose request and answer are
messages built from the reflected descriptors alone.
With CERT it speaks TLS and trusts that certificate alone.
Usage: py_grpc_reflect.py HOST:PORT [CERT]"""
import sys

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

target = sys.argv[1]
cert = sys.argv[2] if len(sys.argv) > 2 else None
if cert:
    with open(cert, "rb") as f:
        channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=f.read()))
else:
    channel = grpc.insecure_channel(target)
db = ProtoReflectionDescriptorDatabase(channel)
pool = descriptor_pool.DescriptorPool(db)
failed = []


def listed():
    services = list(db.get_services())
    assert "gust.echo.Echo" in services, services


def described():
    svc = pool.FindServiceByName("gust.echo.Echo")
    kinds = {m.name: (m.client_streaming, m.server_streaming) for m in svc.methods}
    want = {"Unary": (False, False), "ServerStream": (False, True), "ClientStream": (True, False), "Bidi": (True, True)}
    assert kinds == want, kinds


def unary():
    method = pool.FindServiceByName("gust.echo.Echo").methods_by_name["Unary"]
    Msg = message_factory.GetMessageClass(method.input_type)
    call = channel.unary_unary("/gust.echo.Echo/Unary", request_serializer=Msg.SerializeToString,
                               response_deserializer=message_factory.GetMessageClass(method.output_type).FromString)
    r = call(Msg(data=b"hi", count=2), timeout=10)
    assert r.data == b"hi" and r.count == 2, r


for name, fn in (("list", listed), ("describe", described), ("unary", unary)):
    try:
        fn()
        print("ok " + name)
    except Exception as e:  # report every step, never stop at the first
        failed.append(f"{name}: {type(e).__name__}: {e}")
channel.close()
if failed:
    print("\n".join(failed), file=sys.stderr)
    sys.exit(1)
