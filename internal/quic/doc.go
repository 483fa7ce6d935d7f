// Package quic is gust's QUIC version 1 wire layer (RFC 9000, RFC 9001),
// sans-I/O: packets are parsed in place as views into the datagram that
// carried them, protected and unprotected in place, and appended to
// caller-owned buffers. Nothing here owns a socket, a goroutine or a
// clock; datagrams arrive through internal/datagram, and a connection
// engine built on these pieces turns them into events, packets to send and
// a next timeout.
//
// The handshake keys come from crypto/tls's QUICConn: each secret it
// reports for an encryption level becomes a Keys with NewKeys; the Initial
// keys come from the client's first Destination Connection ID with
// NewInitialKeys.
//
// Conn is the connection engine on these pieces, either role, with the
// shape of internal/http2: Receive takes a datagram, AppendDatagram gives
// the next one to send, NextTimeout and OnTimeout run the timers,
// NextEvent reports handshake completion, streams opened by the peer,
// streams readable or writable and the connection's end; OpenStream,
// Write, CloseWrite, Read, ResetStream and StopSending drive the streams.
//
// # Files
//
//   - chacha.go: ChaCha20-Poly1305's header protection mask, ChaCha20's block written out
//   - cids.go: connection IDs both ways: NEW_CONNECTION_ID, RETIRE_CONNECTION_ID, reset tokens
//   - congestion.go: NewReno (RFC 9002 section 7): slow start, avoidance, recovery, persistent congestion
//   - conn.go: Config, Conn and its state, events, the idle timer, NextTimeout and OnTimeout
//   - conn_close.go: Close, a transport error's close, draining, Abandon, the end of a connection
//   - conn_frames.go: each frame received applied: ACK, CRYPTO to TLS, stream frames, limits, connection IDs, close
//   - conn_idle.go: a quiet connection lets its ciphers and buffers go, made again on use; Quiet, TLSState
//   - conn_loss.go: the connection joined to Recovery: packets sent, ACKs, PTO probes, records freed
//   - conn_recv.go: Receive: coalesced packets unprotected in place, key phases, Retry, Version Negotiation
//   - conn_send.go: AppendDatagram: packets per space coalesced and padded, ACK, CRYPTO, control and STREAM frames
//   - conn_tls.go: the constructors, crypto/tls events, transport parameters, key discard and update
//   - ecn.go: ECN: marks sent and counted, the path validated (RFC 9000 section 13.4), CE reported as congestion
//   - errors.go: TransportErrorCode and TransportError (RFC 9000 section 20.1)
//   - flow.go: connFlow: connection flow control both ways, MAX_DATA and DATA_BLOCKED
//   - frame.go: FrameType, Frame (every frame type in one value), ACK ranges read in place, where each frame may appear
//   - frameappend.go: frames appended: any parsed Frame, STREAM, CRYPTO, ACK from a RangeSet
//   - frameparse.go: ParseFrame: every RFC 9000 frame, no allocation, FRAME_ENCODING_ERROR on malformed input
//   - header.go: long and short headers, Version Negotiation, coalesced packets split by Length
//   - keys.go: Initial secrets, HKDF-Expand-Label, key material of a TLS secret, the key update secret, AEAD limits
//   - pacer.go: Pacer: a token bucket filled at 1.25 cwnd per smoothed RTT (RFC 9002 section 7.7)
//   - packetnum.go: packet numbers truncated for the wire and recovered (RFC 9000 section 17.1)
//   - protect.go: Keys: AEAD packet protection and header protection, in place, cipher objects made at first use
//   - rangeset.go: RangeSet: received packet numbers as bounded ranges, largest first, for ACK frames
//   - raw.go: SealRawFrames, CloseTransport and PeerTransportParameters, for test peers that misbehave
//   - records.go: what each packet carried, by handle, resent or released when it is lost or acknowledged
//   - recovery.go: Recovery (RFC 9002 appendix A): packets sent, the loss detection timer, spaces discarded
//   - recovery_ack.go: ACKs received: RTT samples, losses by packet and time thresholds, NewReno driven, ECN-CE
//   - recvbuf.go: recvBuf: a stream's received bytes reassembled in place, read in order
//   - retry.go: the Retry packet's integrity tag (RFC 9001 section 5.8): append and validate
//   - rtt.go: RTT: the round-trip estimate and the PTO, loss delay and ACK delay derived from it (RFC 9002)
//   - sendbuf.go: sendBuf: a stream's bytes written, sent, acknowledged and lost
//   - sent.go: Space, SentPacket, and each space's sent packets in a reused ring
//   - spans.go: spanSet: sorted byte ranges of a stream
//   - statelessreset.go: stateless reset tokens from a static key, Stateless Resets sent and detected
//   - stats.go: ConnStats (RTT, packets sent and lost, congestion events), StreamsAvailable
//   - stream.go: stream: one stream's state both ways, final size, resets, its frames appended
//   - streams.go: the stream API (OpenStream, Write, Read, CloseWrite, ResetStream, StopSending) and stream limits
//   - token.go: TokenProtector: address validation tokens for Retry and NEW_TOKEN, sealed and opened
//   - transportparams.go: TransportParameters (RFC 9000 section 18): parsed, checked, appended
//   - varint.go: variable-length integers (RFC 9000 section 16): append, parse, length
package quic
