package load

import (
	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
)

// RequestHead is a request's head as a Source gives it: method, target,
// Host and header fields (Host first, as HTTP/1.1 writes them; HTTP/2
// sends Host as :authority and leaves out the fields it forbids). Its
// slices are the Source's, valid until its Next is called again.
type RequestHead = head.Request

// HeaderField is one field of a RequestHead.
type HeaderField = head.Field

// request is what a session encodes a request from: its head and body,
// and, for the run's one request (Config's), its HTTP/1.1 bytes serialized
// once. A Source's requests are views of the batch they came in, so a
// session keeps nothing of one past send but what it copies.
type request struct {
	head head.Request
	body []byte
	// wire, if not nil, is head and body serialized as HTTP/1.1 once;
	// without it HTTP/1.1 serializes the head at each send.
	wire []byte
	// kept reports that body outlives every stream sending it (Config's),
	// so HTTP/2 sends it without a copy.
	kept bool
}

// appendHTTP1 appends r as HTTP/1.1 to out.
func (r *request) appendHTTP1(out []byte) []byte {
	if r.wire != nil {
		return append(out, r.wire...)
	}
	out = http1.AppendHead(out, &r.head)
	return append(out, r.body...)
}

// newTargetRequest builds the run's one request from Config, serialized
// once for HTTP/1.1.
func newTargetRequest(r *http1.Request) request {
	req := request{body: r.Body, kept: true}
	http1.BuildHead(&req.head, r, nil)
	req.wire = append(http1.AppendHead(nil, &req.head), r.Body...)
	return req
}
