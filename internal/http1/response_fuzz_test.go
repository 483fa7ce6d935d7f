package http1

import (
	"bufio"
	"bytes"
	"net/http"
	"testing"

	"github.com/gust-http/gust/internal/ascii"
)

func FuzzParseResponseHead(f *testing.F) {
	for _, c := range append(validHeads[:len(validHeads):len(validHeads)], malformedHeads...) {
		f.Add([]byte(c.in), uint16(len(c.in)/2), uint16(0))
	}
	f.Add([]byte(benchHead+"Hello, Go!"), uint16(60), uint16(64))
	f.Fuzz(func(t *testing.T, buf []byte, cut, max uint16) {
		maxHead := int(max)
		limit := maxHead
		if limit <= 0 {
			limit = DefaultMaxHead
		}
		var h ResponseHead
		n, err := ParseResponseHead(buf, maxHead, &h)
		if err != nil {
			if n != 0 {
				t.Fatalf("n = %d with error %v", n, err)
			}
			if err != ErrIncomplete && !IsMalformed(err) {
				t.Fatalf("unexpected error %v", err)
			}
			if err == ErrIncomplete && len(buf) >= limit {
				t.Fatalf("ErrIncomplete for %d bytes with maxHead %d", len(buf), limit)
			}
		} else {
			switch {
			case n != h.HeadLen || n <= 0 || n > len(buf) || n > limit:
				t.Fatalf("n = %d, HeadLen = %d, len(buf) = %d, maxHead %d", n, h.HeadLen, len(buf), limit)
			case buf[n-1] != '\n':
				t.Fatalf("head does not end in LF: %q", buf[:n])
			case h.Major != 1 || h.Minor < 0 || h.Minor > 9 || h.StatusCode < 100 || h.StatusCode > 999:
				t.Fatalf("impossible status line: %+v", h)
			case h.ContentLength < -1:
				t.Fatalf("ContentLength = %d", h.ContentLength)
			case h.Body(false) > BodyUntilClose || h.Body(true) != BodyNone:
				t.Fatalf("Body = %v, %v", h.Body(false), h.Body(true))
			}
			checkAgainstNetHTTP(t, buf[:n], &h)
		}

		// A prefix gives ErrIncomplete or the same result.
		k := int(cut) % (len(buf) + 1)
		var hp ResponseHead
		np, errp := ParseResponseHead(buf[:k], maxHead, &hp)
		if errp != ErrIncomplete && (errp != err || np != n || err == nil && hp != h) {
			t.Fatalf("prefix of %d bytes: %d, %v, %+v\nwhole %d bytes: %d, %v, %+v", k, np, errp, hp, len(buf), n, err, h)
		}
		if err == ErrIncomplete && errp != ErrIncomplete {
			t.Fatalf("prefix of %d bytes: %v, but the whole is incomplete", k, errp)
		}
	})
}

// checkAgainstNetHTTP makes sure that a head this package accepts means the
// same to net/http, where the two are meant to agree: the status code, the
// body length, and whether the connection closes.
func checkAgainstNetHTTP(t *testing.T, head []byte, h *ResponseHead) {
	t.Helper()
	if h.StatusCode < 200 || h.transferEncoding {
		// net/http treats 1xx specially and refuses codings it does not
		// implement; neither says anything about this parser.
		return
	}
	req, _ := http.NewRequest("GET", "http://example.com/", nil)
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), req)
	if err != nil && contentLengthRepeatedAsOneNumber(head) {
		// RFC 9110 section 8.6 lets a recipient read "5, 5", or fields
		// "05" and "5", as the one decimal value they all give; net/http
		// refuses a list and repeated fields that differ as text.
		return
	}
	if err != nil {
		t.Fatalf("net/http refuses a head this package accepts: %v\n%q", err, head)
	}
	resp.Body.Close()
	if resp.StatusCode != h.StatusCode {
		t.Fatalf("net/http reads status %d, this package %d", resp.StatusCode, h.StatusCode)
	}
	if h.Body(false) == BodyLength && resp.ContentLength != h.ContentLength {
		t.Fatalf("net/http reads Content-Length %d, this package %d\n%q", resp.ContentLength, h.ContentLength, head)
	}
	if h.Body(false) != BodyUntilClose && resp.Close != h.Close {
		t.Fatalf("net/http reads Close %v, this package %v\n%q", resp.Close, h.Close, head)
	}
}

// contentLengthRepeatedAsOneNumber reports whether the Content-Length lines
// of head hold a comma-separated list, or several values that differ as
// text (this package accepts them only if they are the same number).
func contentLengthRepeatedAsOneNumber(head []byte) bool {
	var first []byte
	for line := range bytes.Lines(head) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !ascii.EqualLower(name, "content-length") {
			continue
		}
		value = trimOWS(bytes.TrimRight(value, "\r\n"))
		switch {
		case bytes.IndexByte(value, ',') >= 0:
			return true
		case first == nil:
			first = value
		case !bytes.Equal(value, first):
			return true
		}
	}
	return false
}
