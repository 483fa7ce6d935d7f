// Package http1 implements the HTTP/1.1 wire format (RFC 9112) pieces that
// gust's load generator and server share: for the generator, a request
// serializer (AppendRequest; BuildHead and AppendHead for a request held as
// an internal/head.Request) and a response head parser; for the server, a
// request head parser and its responses' bytes (AppendReply, chunks,
// AppendError, AppendContinue); for both, a chunked body decoder.
//
// Everything on the hot path works on caller-owned byte slices and does not
// allocate: parsers return predefined error values, report results through
// caller-provided structs, and never copy the input. The parsers are
// incremental: they can be called again on a longer buffer when they report
// ErrIncomplete (heads) or after consuming what they were given (chunked
// bodies).
//
// The parsers are robust but not lax about framing: anything that could make
// two implementations disagree about where a message ends, such as differing
// Content-Length values, obs-folded lines or bare CR, is rejected rather than
// guessed at.
package http1
