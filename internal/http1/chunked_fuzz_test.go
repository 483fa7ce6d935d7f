package http1

import (
	"bytes"
	"io"
	"net/http/httputil"
	"testing"
)

func FuzzChunkedDecoder(f *testing.F) {
	for _, c := range append(chunkCases[:len(chunkCases):len(chunkCases)], chunkExtCases...) {
		if len(c.in) < 1024 {
			f.Add([]byte(c.in), []byte{3, 1, 7})
		}
	}
	f.Add(chunkedBody("Hello, Go! Hello, Go!", 4, "A: b\r\n"), []byte{0, 5, 1, 1, 2})
	f.Fuzz(func(t *testing.T, in, steps []byte) {
		whole := decodeSplit(t, in, nil)
		switch {
		case whole.consumed > len(in):
			t.Fatalf("consumed %d of %d bytes", whole.consumed, len(in))
		case whole.err != nil && !IsMalformed(whole.err):
			t.Fatalf("unexpected error %v", whole.err)
		case whole.err == nil && !whole.done && whole.consumed != len(in):
			t.Fatalf("stopped after %d of %d bytes without a reason", whole.consumed, len(in))
		case len(whole.data) > len(in):
			t.Fatalf("more data than input")
		}

		if whole.done {
			checkChunkedAgainstNetHTTP(t, in[:whole.consumed], whole.data)
		}

		// Splitting the input anywhere changes nothing.
		var cuts []int
		pos := 0
		for _, s := range steps {
			if pos += int(s); pos > len(in) {
				break
			}
			cuts = append(cuts, pos)
		}
		if split := decodeSplit(t, in, cuts); split != whole {
			t.Fatalf("split at %v: %+v\nwhole: %+v", cuts, split, whole)
		}
		if len(in) <= 512 {
			bytewise := make([]int, len(in))
			for i := range bytewise {
				bytewise[i] = i
			}
			if split := decodeSplit(t, in, bytewise); split != whole {
				t.Fatalf("byte by byte: %+v\nwhole: %+v", split, whole)
			}
		}
	})
}

// checkChunkedAgainstNetHTTP makes sure that net/http decodes a body this
// package accepts to the same data.
func checkChunkedAgainstNetHTTP(t *testing.T, body []byte, data string) {
	t.Helper()
	got, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body)))
	if err != nil && netHTTPStricter(err, body) {
		return
	}
	if err != nil {
		t.Fatalf("net/http refuses a body this package accepts: %v\n%q", err, body)
	}
	if string(got) != data {
		t.Fatalf("net/http decodes %q, this package %q", got, data)
	}
}

// netHTTPStricter reports whether net/http refused body for one of the
// known reasons where it is stricter than this package on purpose.
func netHTTPStricter(err error, body []byte) bool {
	switch err.Error() {
	case "header line too long", // its chunk lines are limited to 4 KiB in all
		"chunked encoding contains too much non-data": // it limits overhead per data byte
		return true
	case "invalid byte in chunk length":
		// It does not allow the BWS that RFC 9112 section 7.1.1 allows
		// before ";".
		return bytes.Contains(body, []byte(" ;")) || bytes.Contains(body, []byte("\t;"))
	}
	return false
}
