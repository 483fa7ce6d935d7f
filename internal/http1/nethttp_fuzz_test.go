package http1

import (
	"strings"
	"testing"
)

// FuzzRequestAgainstNetHTTP feeds the same bytes to this package
// (ParseRequestHead, then the body by Content-Length or ChunkedDecoder) and
// to net/http (http.ReadRequest, then io.ReadAll of the body). Either both
// refuse them, or both accept them and agree on the method, target,
// version, Host, header fields, connection persistence, body and the number
// of bytes the request spans (where a pipelined next request would start).
// Any other outcome must be one of the documented divergences.
func FuzzRequestAgainstNetHTTP(f *testing.F) {
	for _, s := range differentialSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		j := judge(in)
		if j.problem != "" {
			t.Fatalf("%s\ninput: %q", j.problem, in)
		}
		if j.gust.err != nil && j.gust.err != ErrIncomplete && !IsMalformed(j.gust.err) {
			t.Fatalf("unexpected error %v", j.gust.err)
		}
	})
}

// differentialSeeds returns the request cases of the other tests, chunked
// bodies behind a request head, the divergences' examples and the classic
// smuggling shapes, each followed by a pipelined request so that a
// disagreement about where a request ends shows.
func differentialSeeds() []string {
	const next = "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"
	var seeds []string
	for _, c := range validRequests {
		seeds = append(seeds, c.in+next)
	}
	for _, c := range malformedRequests {
		seeds = append(seeds, c.in)
	}
	for _, c := range chunkCases {
		if len(c.in) < 1024 {
			seeds = append(seeds, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"+c.in+next)
		}
	}
	for _, d := range divergences {
		if len(d.example) < 1024 {
			seeds = append(seeds, d.example)
		}
	}
	return append(seeds,
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X\r\n\r\n5;a=b\r\nhello\r\n0\r\nX: 1\r\n\r\n"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\nContent-Length: 4\r\n\r\n5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nX: y\r\n Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\n\r\n"+next,
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\n0\r\n\r\n",
		"POST / HTTP/1.0\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\nA"+next,
		"GET http://a:80/x?y HTTP/1.1\r\nHost: b\r\n\r\n"+next,
		"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: a\r\nPragma: no-cache\r\n\r\n"+next,
		"GET / HTTP/1.1\r\nHost: a\r\nX: caf\xc3\xa9\r\nX:  two \t\r\n\r\n"+next,
		"GET / HTTP/1.1\r\nHost: a\r\n"+strings.Repeat("X-Many: y\r\n", DefaultMaxHeaders-1)+"\r\n",
	)
}
