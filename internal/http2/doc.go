// Package http2 is gust's HTTP/2 wire layer for both sides of a connection
// (RFC 9113): frames parsed in place and appended to byte slices, settings,
// connection and stream flow control, HPACK with limits (on
// golang.org/x/net/http2/hpack), and sans-I/O connection engines that turn
// bytes read into events and append bytes to write to a caller-owned buffer.
//
// Nothing here owns a socket or a goroutine: an event loop feeds the engine
// the bytes it read and writes the bytes the engine appended.
package http2
