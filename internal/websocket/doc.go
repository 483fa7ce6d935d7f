// Package websocket is gust's WebSocket wire layer for both sides of a
// connection: RFC 6455 framing and the close handshake, and RFC 7692
// permessage-deflate, as a sans-I/O engine in the style of internal/http2.
//
// A Conn owns no socket and no goroutine. The caller feeds it the bytes it
// read (Feed), reads what they completed (Events), and writes the bytes Feed
// and the Append methods add to a caller-owned buffer: pongs to pings, the
// reply to a close, the close that ends a protocol error. Payloads are
// unmasked in place in the caller's bytes, so an unfragmented, uncompressed
// message is delivered without a copy; fragmented and compressed messages are
// assembled in pooled buffers that an idle Conn gives back.
//
// The opening handshake is HTTP/1.1 and belongs to the caller; this package
// gives it the pieces that are WebSocket's own: AcceptKey and ValidKey, the
// client's request (AppendClientHandshake) and the check of the server's
// answer (CheckServerResponse), and the permessage-deflate negotiation
// (NegotiateDeflate, AppendDeflateOffer, ParseDeflateResponse).
//
// For a broadcast, AppendFrame and AppendCompressedFrame build a frame once
// for many server connections.
//
// # Files
//
//   - closecode.go: close codes, ValidCloseCode, CloseError
//   - conn.go: Conn, Config, Event: Feed checks frames, assembles fragments, answers control frames
//   - deflate.go: permessage-deflate's compression and inflation, pooled, no context takeover; CompressedBound
//   - frame.go: ParseFrameHeader and AppendFrame
//   - handshake.go: the opening handshake's pieces: AcceptKey, NewKey, client request, server check
//   - mask.go: Mask: XOR with the masking key, eight bytes at a time, across splits
//   - negotiate.go: RFC 7692's negotiation: DeflateParams, offers and answers
//   - opcode.go: Opcode: control or data, known or reserved
//   - pool.go: pooled message buffers and event slices
//   - send.go: what a Conn writes: messages (compressed and masked as negotiated), ping, pong, close
//   - utf8.go: UTF8: incremental validation across fragments
package websocket
