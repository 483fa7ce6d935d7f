package load

import (
	"bytes"
	"strings"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// Requests reach a session serialized as HTTP/1.1 (the form Config and a
// Source produce). HTTP/2 sends fields, not bytes, so each distinct
// request is parsed back once, with the server's own request-head parser,
// into an http2.Request that every stream sending it shares; the engine
// then encodes its header block once too (internal/http2's block cache).

// h2request is one parsed request.
type h2request struct {
	raw []byte // the HTTP/1.1 bytes, a copy; h2.Body points into it
	h2  http2.Request
	// refs counts streams in flight whose body the engine still holds
	// (it keeps Body, not a copy, until the stream ends).
	refs int
}

// h2requests remembers the last request parsed.
type h2requests struct {
	last *h2request
	head http1.RequestHead
}

// get returns req parsed, from memory when it is the last one. A request
// the engine may still be sending the body of is never overwritten: a new
// one is made instead (only a Source's varying requests with bodies do).
func (q *h2requests) get(req []byte, scheme string) *h2request {
	if q.last != nil && bytes.Equal(q.last.raw, req) {
		return q.last
	}
	r := q.last
	if r == nil || r.refs > 0 {
		r = &h2request{}
	}
	r.raw = append(r.raw[:0], req...)
	r.h2 = parseH2Request(r.raw, scheme, &q.head, r.h2.Header[:0])
	q.last = r
	return r
}

// parseH2Request turns an HTTP/1.1 request into HTTP/2's fields: the
// request line and Host become pseudo-headers, names are lowercased, and
// the fields HTTP/2 forbids (RFC 9113 section 8.2.2) are dropped. The
// body is what follows the head. A request that does not parse (gust
// serialized it, so none should) is sent as GET /.
func parseH2Request(raw []byte, scheme string, head *http1.RequestHead, fields []http2.Field) http2.Request {
	n, err := http1.ParseRequestHead(raw, http1.Limits{MaxHeadBytes: len(raw) + 1, MaxHeaders: 1000}, head)
	if err != nil {
		return http2.Request{Method: "GET", Scheme: scheme, Path: "/", Header: fields}
	}
	r := http2.Request{
		Method:    string(head.Method),
		Scheme:    scheme,
		Authority: string(head.Host),
		Path:      string(head.Target),
		Body:      raw[n:],
	}
	for _, h := range head.Headers {
		name := strings.ToLower(string(h.Name))
		switch name {
		case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te":
			continue
		}
		fields = append(fields, http2.Field{Name: name, Value: string(h.Value)})
	}
	r.Header = fields
	if len(r.Body) == 0 {
		r.Body = nil
	}
	return r
}
