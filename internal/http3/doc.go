// Package http3 is gust's HTTP/3 wire layer for both sides of a connection
// (RFC 9114), sans-I/O like internal/http2: frames read from the bytes of a
// stream as they arrive and appended to byte slices, settings, the
// unidirectional stream types, error codes, and QPACK (RFC 9204) with a
// dynamic table of capacity 0, so field sections need no encoder or decoder
// stream and each one decodes alone.
//
// Nothing here owns a socket, a QUIC connection or a goroutine: the QUIC
// engine hands each stream's bytes to a FrameReader, and what the caller
// appends is written to the stream it belongs to. Parsers return views of
// their input and do not allocate once their buffers have grown.
//
// # Files
//
//   - client.go: Client: the client's control stream, the server's one-way streams sorted, GOAWAY
//   - control.go: PeerControl: the peer's control stream read (SETTINGS, GOAWAY), ours opened
//   - errors.go: ErrCode and its names, ConnError and StreamError, CodeOf
//   - frames.go: FrameType and StreamType, reserved codes, frames appended
//   - headers.go: CheckRequest, CheckResponse, CheckTrailers: pseudo-headers and fields (RFC 9114 4.2, 4.3)
//   - qpack.go: QPACK field lines appended: static references, literals, Huffman when shorter
//   - qpack_decode.go: Decoder: field sections decoded in place, static table only, size-bounded
//   - qpack_static.go: the QPACK static table, RFC 9204 Appendix A
//   - reader.go: FrameReader.Next: a stream's frames from bytes in any pieces, per-frame rules
//   - request.go: RequestStream: a request's frames in order, its response's frames checked
//   - server.go: Server (its control stream, the client's one-way streams) and RequestReader
//   - settings.go: SettingID, Settings, SETTINGS appended and parsed
//   - uni.go: one-way streams the peer opened, for either role: type, control stream, QPACK streams
//   - varint.go: parseVarint, internal/quic's integers as the frame reader reads them
package http3
