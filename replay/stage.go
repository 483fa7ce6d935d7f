package replay

import (
	"time"
	"unsafe"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
)

// stage holds requests between the parser and Next, as heads and bodies
// (items[i]'s are the i-th in heads): those before ready have their
// times; the rest wait for their group to close.
type stage struct {
	heads head.Store
	items []staged
	emit  int // the next item Next hands out
	ready int
}

type staged struct {
	at       time.Duration
	endpoint int
	head     bool
}

// compact drops the items Next has handed out, keeping the open group.
func (st *stage) compact() {
	if st.emit < st.ready {
		return
	}
	st.heads.Drop(st.emit)
	st.items = st.items[:copy(st.items, st.items[st.emit:])]
	st.emit, st.ready = 0, 0
}

// stageRequest copies e's request into the stage as the head gust sends
// (http1.BuildHead: Host, User-Agent, the logged fields, Content-Length),
// with its body, time and endpoint.
func (s *Source) stageRequest(e *entry) error {
	hdrs := s.hdrs[:0]
	for _, h := range e.headers {
		if dropped(h[0]) || s.overridden(h[0]) {
			continue
		}
		if err := validHeader(h[0], h[1]); err != nil {
			return err
		}
		hdrs = append(hdrs, [2]string{str(h[0]), str(h[1])})
	}
	hdrs = append(hdrs, s.opts.Header...)
	s.hdrs = hdrs
	var body []byte
	if carriesBody(e.method) {
		body = e.body
	}
	s.req = http1.Request{
		Method:    str(e.method),
		Target:    str(e.target),
		Host:      s.opts.Host,
		Header:    hdrs,
		Body:      body,
		UserAgent: "gust",
	}
	st := &s.stage
	s.digits = http1.BuildHead(&s.head, &s.req, s.digits[:0])
	st.heads.Add(&s.head, body)
	s.req = http1.Request{} // keep no views of the line
	s.head = head.Request{Headers: s.head.Headers[:0]}
	clear(hdrs)

	s.key = appendEndpoint(s.key[:0], e.method, e.target)
	st.items = append(st.items, staged{
		endpoint: s.eps.id(s.key),
		head:     string(e.method) == "HEAD",
	})
	if !s.opts.Timed {
		st.ready = len(st.items)
		return nil
	}
	s.timeRequest(e)
	return nil
}

// dropped reports whether a logged header field is left out: the target
// gets its own Host, and framing and connection management are gust's.
func dropped(name []byte) bool {
	for _, d := range droppedHeaders {
		if http1.EqualFold(name, d) {
			return true
		}
	}
	return false
}

var droppedHeaders = []string{
	"Host", "Connection", "Keep-Alive", "Proxy-Connection", "Content-Length",
	"Transfer-Encoding", "TE", "Trailer", "Upgrade", "Expect",
}

// overridden reports whether an Options.Header field replaces name.
func (s *Source) overridden(name []byte) bool {
	for _, h := range s.opts.Header {
		if http1.EqualFold(name, h[0]) {
			return true
		}
	}
	return false
}

// carriesBody reports whether a request with this method is sent with its
// logged body: POST, PUT and PATCH, the methods that define one.
func carriesBody(method []byte) bool {
	switch string(method) {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}

// str views b as a string without copying. The strings it makes are only
// handed to http1.BuildHead, whose head the stage copies before the bytes
// under them change, and are cleared after.
func str(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
