package replay

import (
	"time"
	"unsafe"

	"github.com/gust-http/gust/internal/http1"
)

// stage holds serialized requests between the parser and Next: those
// before ready have their times; the rest wait for their group to close.
type stage struct {
	buf   []byte
	items []staged
	emit  int // the next item Next hands out
	ready int
}

type staged struct {
	off, end int
	at       time.Duration
	endpoint int
	head     bool
}

// compact drops the items Next has handed out, keeping the open group.
func (st *stage) compact() {
	if st.emit < st.ready {
		return
	}
	rest := st.items[st.emit:]
	if len(rest) == 0 {
		st.buf, st.items = st.buf[:0], st.items[:0]
		st.emit, st.ready = 0, 0
		return
	}
	base := rest[0].off
	n := copy(st.buf, st.buf[base:])
	st.buf = st.buf[:n]
	k := copy(st.items, rest)
	st.items = st.items[:k]
	for i := range st.items {
		st.items[i].off -= base
		st.items[i].end -= base
	}
	st.emit, st.ready = 0, 0
}

// stageRequest serializes e's request into the stage, with its time and
// endpoint.
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
	off := len(st.buf)
	st.buf = http1.AppendRequest(st.buf, &s.req)
	s.req = http1.Request{} // keep no views of the line
	clear(hdrs)

	s.key = appendEndpoint(s.key[:0], e.method, e.target)
	st.items = append(st.items, staged{
		off:      off,
		end:      len(st.buf),
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
// handed to http1.AppendRequest, which copies them out before the bytes
// under them change, and are cleared after.
func str(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
