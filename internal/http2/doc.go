// Package http2 is gust's HTTP/2 wire layer for both sides of a connection
// (RFC 9113): frames parsed in place and appended to byte slices, settings,
// connection and stream flow control, HPACK with limits (on
// golang.org/x/net/http2/hpack), and sans-I/O connection engines that turn
// bytes read into events and append bytes to write to a caller-owned buffer.
//
// Nothing here owns a socket or a goroutine: an event loop feeds the engine
// the bytes it read and writes the bytes the engine appended.
//
// # Files
//
//   - client.go: ClientConn and ClientConfig: Start, CanOpen, Open, WriteData, Cancel, Shutdown
//   - clientencode.go: a request's header block encoded once per distinct request, cached
//   - clientheaders.go: response header blocks decoded and checked (RFC 9113 section 8.3.2)
//   - clientrecv.go: ClientConn.Feed: the server's frames into events, acks, WINDOW_UPDATEs
//   - clientstream.go: clientStream: a request's state, its body sent as windows allow, resets
//   - conncore.go: connCore, what both engines keep alike: reader, HPACK, settings, windows, streams
//   - errors.go: ErrCode and its names, ConnError and StreamError
//   - event.go: EventKind and Event, what ClientConn.Feed reports
//   - flow.go: SendWindow and RecvWindow: credit spent and returned in half-window batches
//   - frame.go: Frame, a parsed frame aliasing the input, accessors per type
//   - frameheader.go: FrameType, Flags, FrameHeader: the 9-byte header and size bounds
//   - hpack.go: HeaderDecoder on x/net's HPACK within HeaderLimits (an HPACK bomb costs its bytes)
//   - reader.go: Reader.Next: frames parsed in place, RFC 9113's per-frame rules, no allocation
//   - server.go: ServerConn, ServerConfig, ServerEvent: Start, Shutdown, Done
//   - serverheaders.go: request header blocks decoded and checked (:protocol with RFC 8441)
//   - serverrecv.go: ServerConn.Feed: preface and frames into events, flood bounds; Consume
//   - serverstream.go: the response side: WriteHeaders, WriteData under the windows, WriteTrailers, Reset
//   - settings.go: SettingID, Settings and their defaults, a received setting validated
//   - streamtable.go: streamTable: stream ids to pool slots, open addressing, no allocation
//   - writecontrol.go: SETTINGS ack, WINDOW_UPDATE, PING, RST_STREAM, GOAWAY, PRIORITY appended
//   - writedata.go: DATA frames appended
//   - writeheaders.go: HEADERS appended, split into CONTINUATION
package http2
