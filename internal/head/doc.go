// Package head is the request head both of gust's protocols share: the
// method, target, authority and header fields a request has whatever its
// wire format, with the framing flags a server needs.
//
// internal/http1's ParseRequestHead parses HTTP/1.1 into a Request; the
// server fills one from an HTTP/2 stream's HPACK fields. On the
// generator's side, load and replay stage requests as Requests in a
// Store, and each client session encodes from them: HTTP/1.1 serializes a
// Request (internal/http1.AppendHead), HTTP/2 HPACK-encodes it
// (internal/http2's ClientConn.Open), so no protocol reads another's text.
//
// A Request's byte slices view memory it does not own: a parser's buffer,
// a Store, a stream's copy. Nothing here allocates once its buffers have
// grown.
//
// # Files
//
//   - request.go: Request and Field: method, scheme, target, Host, fields, framing flags
//   - store.go: Store: heads and bodies copied into one buffer as offsets, nothing allocated once grown
package head
