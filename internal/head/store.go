package head

// A Store keeps copies of request heads and their bodies in one byte
// buffer, for a stage or a batch of many requests: adding one copies its
// bytes, loading one gives views of them. Offsets, not slices, are kept,
// so the buffer may grow or be compacted under them. Once its buffers have
// grown, a Store allocates nothing.
type Store struct {
	buf    []byte
	fields []storedField
	items  []stored
}

// span is a stored slice: buf[off:end], or nil when off is -1.
type span struct{ off, end int }

type storedField struct{ name, value span }

// stored is one Request with its slices as spans.
type stored struct {
	method, scheme, target, host, body span
	off                                int // where its bytes start in buf
	first, last                        int // its fields are fields[first:last]
	major, minor                       int
	contentLength                      int64
	chunked, close, expect100          bool
}

// Len returns the number of requests stored.
func (s *Store) Len() int { return len(s.items) }

// Bytes returns the bytes stored, heads and bodies.
func (s *Store) Bytes() int { return len(s.buf) }

// Size returns what storing h with body adds to Bytes.
func Size(h *Request, body []byte) int {
	n := len(h.Method) + len(h.Scheme) + len(h.Target) + len(h.Host) + len(body)
	for _, f := range h.Headers {
		n += len(f.Name) + len(f.Value)
	}
	return n
}

// Reset empties s, keeping its buffers.
func (s *Store) Reset() {
	s.buf, s.fields, s.items = s.buf[:0], s.fields[:0], s.items[:0]
}

// Grow makes room for n more bytes without reallocating.
func (s *Store) Grow(n int) {
	if cap(s.buf)-len(s.buf) < n {
		b := make([]byte, len(s.buf), len(s.buf)+n)
		copy(b, s.buf)
		s.buf = b
	}
}

// Add copies h and body into s. Path and Query are not kept: Load splits
// Target again.
func (s *Store) Add(h *Request, body []byte) {
	off := len(s.buf)
	it := stored{off: off,
		method: s.put(h.Method), scheme: s.put(h.Scheme), target: s.put(h.Target),
		host: s.put(h.Host), body: s.put(body),
		first: len(s.fields),
		major: h.Major, minor: h.Minor, contentLength: h.ContentLength,
		chunked: h.Chunked, close: h.Close, expect100: h.Expect100,
	}
	for _, f := range h.Headers {
		s.fields = append(s.fields, storedField{s.put(f.Name), s.put(f.Value)})
	}
	it.last = len(s.fields)
	s.items = append(s.items, it)
}

func (s *Store) put(b []byte) span {
	if b == nil {
		return span{-1, -1}
	}
	off := len(s.buf)
	s.buf = append(s.buf, b...)
	return span{off, len(s.buf)}
}

func (s *Store) view(sp span) []byte {
	if sp.off < 0 {
		return nil
	}
	return s.buf[sp.off:sp.end:sp.end]
}

// Load sets h to view the i-th request stored, reusing h.Headers' backing
// array, and returns its body. The views are valid until s changes.
func (s *Store) Load(i int, h *Request) (body []byte) {
	it := &s.items[i]
	*h = Request{
		Method: s.view(it.method), Scheme: s.view(it.scheme), Target: s.view(it.target),
		Host: s.view(it.host), Headers: h.Headers[:0],
		Major: it.major, Minor: it.minor, ContentLength: it.contentLength,
		Chunked: it.chunked, Close: it.close, Expect100: it.expect100,
	}
	h.SplitTarget()
	for _, f := range s.fields[it.first:it.last] {
		h.Headers = append(h.Headers, Field{Name: s.view(f.name), Value: s.view(f.value)})
	}
	return s.view(it.body)
}

// Drop forgets the first n requests, moving the rest to the front.
func (s *Store) Drop(n int) {
	if n >= len(s.items) {
		s.Reset()
		return
	}
	if n <= 0 {
		return
	}
	base, fbase := s.items[n].off, s.items[n].first
	s.buf = s.buf[:copy(s.buf, s.buf[base:])]
	s.fields = s.fields[:copy(s.fields, s.fields[fbase:])]
	s.items = s.items[:copy(s.items, s.items[n:])]
	for i := range s.fields {
		s.fields[i].name.shift(base)
		s.fields[i].value.shift(base)
	}
	for i := range s.items {
		it := &s.items[i]
		for _, sp := range []*span{&it.method, &it.scheme, &it.target, &it.host, &it.body} {
			sp.shift(base)
		}
		it.off -= base
		it.first -= fbase
		it.last -= fbase
	}
}

func (sp *span) shift(base int) {
	if sp.off >= 0 {
		sp.off -= base
		sp.end -= base
	}
}
