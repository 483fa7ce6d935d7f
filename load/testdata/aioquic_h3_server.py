"""An HTTP/3 server on aioquic, an independent QUIC and HTTP/3 stack in
Python, for gust load's interoperability test: it answers every request
with 200 and "hello from aioquic", after reading the request's body.

usage: aioquic_h3_server.py CERT.pem KEY.pem
It binds a UDP port on 127.0.0.1 the kernel picks, prints "listening PORT"
and serves until killed.
"""

import asyncio
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated, QuicEvent

BODY = b"hello from aioquic"


class Answer(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = None

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self.h3 = H3Connection(self._quic)
        if self.h3 is None:
            return
        for ev in self.h3.handle_event(event):
            ended = (isinstance(ev, HeadersReceived) or isinstance(ev, DataReceived)) and ev.stream_ended
            if ended:
                self.h3.send_headers(
                    stream_id=ev.stream_id,
                    headers=[(b":status", b"200"), (b"content-length", str(len(BODY)).encode())],
                )
                self.h3.send_data(stream_id=ev.stream_id, data=BODY, end_stream=True)
        self.transmit()


async def main(cert: str, key: str) -> None:
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, max_datagram_frame_size=None)
    config.load_cert_chain(cert, key)
    server = await serve("127.0.0.1", 0, configuration=config, create_protocol=Answer)
    port = server._transport.get_extra_info("sockname")[1]
    print("listening", port, flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
