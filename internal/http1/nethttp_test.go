package http1

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/head"
	"io"
	"net/http"
	"slices"
)

// The differential harness: the same bytes go to this package and to
// net/http's http.ReadRequest, and judge says whether what they make of them
// differs in a way that divergences (nethttp_divergence_test.go) does not
// explain.

// gustReading is what this package makes of the request at the start of an
// input: ParseRequestHead with the default limits, then the body framed as
// the head says.
type gustReading struct {
	err  error // nil, ErrIncomplete, or the error that refuses the request
	head head.Request
	body []byte
	n    int // bytes the request spans, head and body
}

func readGust(in []byte) *gustReading {
	r := new(gustReading)
	n, err := ParseRequestHead(in, Limits{}, &r.head)
	if err != nil {
		r.err = err
		return r
	}
	switch RequestBodyKind(&r.head) {
	case BodyLength:
		if int64(len(in)-n) < r.head.ContentLength {
			r.err = ErrIncomplete
			return r
		}
		r.n = n + int(r.head.ContentLength)
		r.body = in[n:r.n]
	case BodyChunked:
		var d ChunkedDecoder
		p := in[n:]
		r.body = []byte{}
		for {
			k, data, done, err := d.Decode(p)
			if err != nil {
				r.err = err
				return r
			}
			r.body = append(r.body, data...)
			p = p[k:]
			if done {
				break
			}
			if len(p) == 0 {
				r.err = ErrIncomplete
				return r
			}
		}
		r.n = len(in) - len(p)
	default:
		r.body, r.n = []byte{}, n
	}
	return r
}

// netReading is what net/http makes of the request at the start of an
// input: http.ReadRequest on a bufio.Reader of the default size (as its
// server uses), then io.ReadAll of the body.
type netReading struct {
	err     error // from ReadRequest or from reading the body
	req     *http.Request
	body    []byte
	headEnd int // bytes of the input before the body, as net/http read them
	n       int // bytes the request spans, head and body
}

func readNetHTTP(in []byte) *netReading {
	src := bytes.NewReader(in)
	br := bufio.NewReader(src)
	consumed := func() int { return len(in) - src.Len() - br.Buffered() }
	req, err := http.ReadRequest(br)
	if err != nil {
		return &netReading{err: err}
	}
	r := &netReading{req: req, headEnd: consumed()}
	r.body, r.err = io.ReadAll(req.Body)
	r.n = consumed()
	return r
}

// emptyLinesBefore returns how many bytes of empty lines (CRLF) start in.
func emptyLinesBefore(in []byte) int {
	n := 0
	for bytes.HasPrefix(in[n:], []byte("\r\n")) {
		n += 2
	}
	return n
}

// judgement is the outcome of feeding one input to both parsers.
type judgement struct {
	gust *gustReading
	net  *netReading
	// in is the input net/http was given: the input without the empty
	// lines before the request line (see the emptyLinesBeforeRequestLine
	// divergence); skipped is how many bytes that removed.
	in      []byte
	skipped int
	// excuses names the divergences that explain a disagreement.
	excuses []string
	// problem describes a disagreement no divergence explains; empty when
	// there is none.
	problem string
}

// judge feeds in to both parsers and compares their readings.
func judge(in []byte) *judgement {
	j := &judgement{gust: readGust(in)}
	j.skipped = emptyLinesBefore(in)
	for _, d := range divergences {
		if d.bridged && d.applies(j) {
			j.excuses = append(j.excuses, d.name)
		}
	}
	j.in = in[j.skipped:]
	j.net = readNetHTTP(j.in)
	g, n := j.gust, j.net
	switch {
	case g.err != nil && n.err != nil:
		// Both refuse; which error each gives is its own business.
	case g.err == nil && n.err == nil:
		j.problem = j.compare()
	case g.err != nil:
		j.excuse(gustRefuses, fmt.Sprintf("this package refuses (%v) what net/http accepts", g.err))
	default:
		j.excuse(netHTTPRefuses, fmt.Sprintf("net/http refuses (%v) what this package accepts", n.err))
	}
	return j
}

// excuse looks for the divergences of the given direction that apply to the
// input (and, where this package refuses, to its error), and records the
// problem if none does.
func (j *judgement) excuse(dir direction, problem string) {
	found := false
	for _, d := range divergences {
		if d.dir == dir && !d.bridged && d.applies(j) && (dir == netHTTPRefuses || slices.Contains(d.errs, j.gust.err)) {
			j.excuses = append(j.excuses, d.name)
			found = true
		}
	}
	if !found {
		j.problem = problem
	}
}

// compare reports how two accepting readings differ, or "".
func (j *judgement) compare() string {
	g, n := j.gust, j.net
	h, req := &g.head, n.req
	switch {
	case req.Method != string(h.Method):
		return fmt.Sprintf("net/http reads method %q, this package %q", req.Method, h.Method)
	case req.RequestURI != string(h.Target):
		return fmt.Sprintf("net/http reads target %q, this package %q", req.RequestURI, h.Target)
	case req.ProtoMajor != h.Major || req.ProtoMinor != h.Minor:
		return fmt.Sprintf("net/http reads version %d.%d, this package %d.%d", req.ProtoMajor, req.ProtoMinor, h.Major, h.Minor)
	case req.Host != string(h.Host):
		return fmt.Sprintf("net/http reads Host %q, this package %q", req.Host, h.Host)
	case req.Close != h.Close:
		return fmt.Sprintf("net/http reads Close %v, this package %v", req.Close, h.Close)
	case h.Chunked != slices.Equal(req.TransferEncoding, []string{"chunked"}):
		return fmt.Sprintf("net/http reads Transfer-Encoding %q, this package Chunked %v", req.TransferEncoding, h.Chunked)
	case !bytes.Equal(n.body, g.body):
		return fmt.Sprintf("net/http reads body %q, this package %q", n.body, g.body)
	case j.skipped+n.n != g.n:
		return fmt.Sprintf("net/http reads a request of %d bytes, this package %d: the next request starts at different bytes", j.skipped+n.n, g.n)
	}
	// net/http reports 0 for a request without a body, -1 for chunked.
	wantCL := h.ContentLength
	switch {
	case h.Chunked:
		wantCL = -1
	case wantCL < 0:
		wantCL = 0
	}
	if req.ContentLength != wantCL {
		return fmt.Sprintf("net/http reads Content-Length %d, this package %d", req.ContentLength, h.ContentLength)
	}
	return compareFields(h, req.Header)
}

// compareFields reports how the header fields of h and net/http's Header
// differ, or "". net/http moves Host to Request.Host, and consumes
// Content-Length, Transfer-Encoding and (for a chunked body) Trailer, so
// those are compared elsewhere or not at all.
func compareFields(h *head.Request, header http.Header) string {
	skip := func(name string) bool {
		return ascii.EqualLower(name, "host") || ascii.EqualLower(name, "content-length") ||
			ascii.EqualLower(name, "transfer-encoding") || h.Chunked && ascii.EqualLower(name, "trailer")
	}
	names := map[string]bool{}
	for i, f := range h.Headers {
		if skip(string(f.Name)) {
			continue
		}
		names[http.CanonicalHeaderKey(string(f.Name))] = true
		var values []string
		for _, g := range h.Headers {
			if bytes.EqualFold(g.Name, f.Name) {
				values = append(values, string(g.Value))
			}
		}
		if got := header.Values(string(f.Name)); !slices.Equal(got, values) {
			return fmt.Sprintf("field %d: net/http reads %s: %q, this package %q", i, f.Name, got, values)
		}
	}
	for name := range header {
		if skip(name) || names[name] {
			continue
		}
		// net/http adds Cache-Control: no-cache for a Pragma: no-cache
		// without Cache-Control (RFC 7234 section 5.4); that is no field
		// the client sent.
		if name == "Cache-Control" && header.Get("Pragma") == "no-cache" {
			continue
		}
		return fmt.Sprintf("net/http reads a field %s that this package does not", name)
	}
	return ""
}
