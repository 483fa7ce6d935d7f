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
//
// # Files
//
//   - body.go: how a response's body is delimited (the generator's side)
//   - chunked.go: ChunkedDecoder: chunked bodies across any split, extensions held to the grammar
//   - errors.go: the parsers' errors and the status each maps to
//   - fields.go: field lines, and a response's Content-Length, Transfer-Encoding, Connection
//   - host.go: an authority (Host, absolute-form target) checked: reg-name, IPv4, IPv6, port
//   - reply.go: the server's bytes: AppendReply, chunks, AppendError, AppendContinue
//   - request.go: Request serialized once (AppendRequest); BuildHead, AppendHead; ValidateHeader
//   - requestfields.go: a request's field lines parsed in place
//   - requesthead.go: ParseRequestHead: the request head in place (RFC 9112 sections 3 and 5)
//   - requestline.go: the request line: method, target, version
//   - response.go: the response head parsed in place (the generator's side)
//   - statusline.go: a response's status line
//   - token.go: byte classes (tokens, field values), IsToken, EqualFold, list elements
//   - urlerr.go: UnwrapURLError, a *url.Error's cause for one-line messages
package http1
