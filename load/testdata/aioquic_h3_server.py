"""An HTTP/3 server on aioquic, an independent QUIC and HTTP/3 stack in
Python, for gust load's interoperability test: it answers every request
with 200 and "hello from aioquic", after reading the request's body.

usage: aioquic_h3_server.py [--goaway-after N] CERT.pem KEY.pem
It binds a UDP port on 127.0.0.1 the kernel picks, prints "listening PORT"
and serves until killed.

With --goaway-after N, a connection that has answered N requests sends
GOAWAY on its control stream, naming the stream after the last it
answered; requests on that stream or later ones are reset with
H3_REQUEST_REJECTED, unprocessed (RFC 9114 section 5.2), and those below
it still answered.
"""

import argparse
import asyncio

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.buffer import encode_uint_var
from aioquic.h3.connection import H3_ALPN, FrameType, H3Connection, encode_frame
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated, QuicEvent

BODY = b"hello from aioquic"
H3_REQUEST_REJECTED = 0x10B


class Answer(QuicConnectionProtocol):
    goaway_after = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = None
        self.answered = 0
        self.goaway_id = None  # the stream ID the GOAWAY named, once sent

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self.h3 = H3Connection(self._quic)
        if self.h3 is None:
            return
        for ev in self.h3.handle_event(event):
            ended = (isinstance(ev, HeadersReceived) or isinstance(ev, DataReceived)) and ev.stream_ended
            if ended:
                self.answer(ev.stream_id)
        self.transmit()

    def answer(self, stream_id: int) -> None:
        if self.goaway_id is not None and stream_id >= self.goaway_id:
            self._quic.reset_stream(stream_id, H3_REQUEST_REJECTED)
            return
        self.h3.send_headers(
            stream_id=stream_id,
            headers=[(b":status", b"200"), (b"content-length", str(len(BODY)).encode())],
        )
        self.h3.send_data(stream_id=stream_id, data=BODY, end_stream=True)
        self.answered += 1
        if self.goaway_after and self.goaway_id is None and self.answered >= self.goaway_after:
            self.goaway_id = stream_id + 4
            self._quic.send_stream_data(
                self.h3._local_control_stream_id,
                encode_frame(FrameType.GOAWAY, encode_uint_var(self.goaway_id)),
            )


async def main(args: argparse.Namespace) -> None:
    Answer.goaway_after = args.goaway_after
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, max_datagram_frame_size=None)
    config.load_cert_chain(args.cert, args.key)
    server = await serve("127.0.0.1", 0, configuration=config, create_protocol=Answer, retry=args.retry)
    port = server._transport.get_extra_info("sockname")[1]
    print("listening", port, flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--goaway-after", type=int, default=0, help="send GOAWAY after this many answers per connection")
    p.add_argument("--retry", action="store_true", help="validate every client's address with a Retry first")
    p.add_argument("cert")
    p.add_argument("key")
    asyncio.run(main(p.parse_args()))
