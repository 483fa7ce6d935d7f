package http1

import "testing"

// TestHotPathsDoNotAllocate guards the promise in the package comment: the
// parsers and the serializer run without touching the heap.
func TestHotPathsDoNotAllocate(t *testing.T) {
	head := []byte(benchHead + "Hello, Go!")
	chunked := chunkedBody("Hello, Go! Hello, Go!", 8, "X-Sum: 1\r\n")
	req := &Request{Method: "POST", Host: "h", UserAgent: "gust", Body: []byte("x"), Header: [][2]string{{"Accept", "*/*"}}}
	reqBuf := AppendRequest(nil, req)

	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ParseResponseHead does not allocate", func(t *testing.T) {
			var h ResponseHead
			if _, err := ParseResponseHead(head, 0, &h); err != nil {
				t.Fatal(err)
			}
		}},
		{"ParseResponseHead does not allocate on incomplete input", func(t *testing.T) {
			var h ResponseHead
			if _, err := ParseResponseHead(head[:50], 0, &h); err != ErrIncomplete {
				t.Fatal(err)
			}
		}},
		{"ParseResponseHead does not allocate on malformed input", func(t *testing.T) {
			var h ResponseHead
			if _, err := ParseResponseHead([]byte("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"), 0, &h); err != ErrBadContentLength {
				t.Fatal(err)
			}
		}},
		{"ChunkedDecoder.Decode does not allocate", func(t *testing.T) {
			var d ChunkedDecoder
			p, done := chunked, false
			for len(p) > 0 && !done {
				n, _, dn, err := d.Decode(p)
				if err != nil {
					t.Fatal(err)
				}
				p, done = p[n:], dn
			}
		}},
		{"ChunkedDecoder.Decode does not allocate on malformed input", func(t *testing.T) {
			var d ChunkedDecoder
			if _, _, _, err := d.Decode([]byte("5;\x00")); err != ErrBadChunk {
				t.Fatal(err)
			}
		}},
		{"AppendRequest does not allocate into a large enough buffer", func(t *testing.T) {
			reqBuf = AppendRequest(reqBuf[:0], req)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(100, func() { c.run(t) }); allocs != 0 {
				t.Errorf("%v allocations per run, want 0", allocs)
			}
		})
	}
}
