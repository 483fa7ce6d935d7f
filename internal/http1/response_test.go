package http1

import (
	"strings"
	"testing"
)

// headCase is one response head and what ParseResponseHead must make of it.
type headCase struct {
	name string
	in   string
	want ResponseHead // HeadLen 0 means len(in)
	err  error
}

// validHeads are heads ParseResponseHead must accept.
var validHeads = []headCase{
	{
		name: "a minimal HTTP/1.1 response parses",
		in:   "HTTP/1.1 200 OK\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1},
	},
	{
		name: "a status line without a reason phrase parses",
		in:   "HTTP/1.1 204\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 204, ContentLength: -1},
	},
	{
		name: "an empty reason phrase after the space parses",
		in:   "HTTP/1.1 200 \r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1},
	},
	{
		name: "a reason phrase with tabs and obs-text parses",
		in:   "HTTP/1.1 404 Not\tFound \xe2\x9c\x97\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 404, ContentLength: -1},
	},
	{
		name: "bare LF line endings are accepted",
		in:   "HTTP/1.1 200 OK\nContent-Length: 5\n\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 5},
	},
	{
		name: "mixed CRLF and LF line endings are accepted",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 5\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 5},
	},
	{
		name: "the body after the head is not part of it",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 2, HeadLen: 38},
	},
	{
		name: "a typical server response parses",
		in:   benchHead,
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 10},
	},
	{
		name: "header names match case-insensitively",
		in:   "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh: 12\r\nCONNECTION: CLOSE\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 12, Close: true},
	},
	{
		name: "optional whitespace around a value is ignored",
		in:   "HTTP/1.1 200 OK\r\nContent-Length:  \t7 \t\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 7},
	},
	{
		name: "a value may be empty",
		in:   "HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Blank:   \r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1},
	},
	{
		name: "Content-Length with leading zeros is decimal",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 007\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 7},
	},
	{
		name: "the largest Content-Length parses",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 1<<63 - 1},
	},
	{
		name: "repeated identical Content-Length fields are accepted",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 5},
	},
	{
		name: "a Content-Length list of identical values is accepted",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 5 , 5,5\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 5},
	},
	{
		name: "Transfer-Encoding chunked sets Chunked",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "the chunked coding matches case-insensitively",
		in:   "HTTP/1.1 200 OK\r\ntransfer-encoding: ChUnKeD\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "chunked as the final of several codings sets Chunked",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "chunked before another coding does not set Chunked",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, transferEncoding: true},
	},
	{
		name: "the final coding is taken across repeated Transfer-Encoding fields",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "empty Transfer-Encoding elements are ignored",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked,, \r\nTransfer-Encoding:\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "a coding with parameters is named by its token",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: foo;q=1 , chunked ;x=y\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Chunked: true, transferEncoding: true},
	},
	{
		name: "Transfer-Encoding keeps the Content-Length that was parsed",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: 9, Chunked: true, transferEncoding: true},
	},
	{
		name: "Connection close sets Close",
		in:   "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Close: true},
	},
	{
		name: "close among other Connection options sets Close",
		in:   "HTTP/1.1 200 OK\r\nConnection: keep-alive, Upgrade ,close\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1, Close: true},
	},
	{
		name: "other Connection options leave HTTP/1.1 persistent",
		in:   "HTTP/1.1 200 OK\r\nConnection: Upgrade, closed\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 200, ContentLength: -1},
	},
	{
		name: "HTTP/1.0 closes by default",
		in:   "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 0, StatusCode: 200, ContentLength: 3, Close: true},
	},
	{
		name: "HTTP/1.0 with keep-alive stays open",
		in:   "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 0, StatusCode: 200, ContentLength: 3},
	},
	{
		name: "HTTP/1.0 with keep-alive and close closes",
		in:   "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 0, StatusCode: 200, ContentLength: -1, Close: true},
	},
	{
		name: "HTTP/1.0 with Transfer-Encoding closes even with keep-alive",
		in:   "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 0, StatusCode: 200, ContentLength: -1, Chunked: true, Close: true, transferEncoding: true},
	},
	{
		name: "a later HTTP/1 minor version behaves like 1.1",
		in:   "HTTP/1.2 200 OK\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 2, StatusCode: 200, ContentLength: -1},
	},
	{
		name: "status codes from 100 to 999 parse",
		in:   "HTTP/1.1 999 Whatever\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 999, ContentLength: -1},
	},
	{
		name: "an informational response parses",
		in:   "HTTP/1.1 100 Continue\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 100, ContentLength: -1},
	},
	{
		name: "unrelated headers are skipped",
		in:   "HTTP/1.1 301 Moved\r\nLocation: /x\r\nSet-Cookie: a=b; Path=/\r\nX-!#$%&'*+-.^_`|~: v\r\nContent-Length: 0\r\n\r\n",
		want: ResponseHead{Major: 1, Minor: 1, StatusCode: 301, ContentLength: 0},
	},
}

// malformedHeads are heads ParseResponseHead must refuse.
var malformedHeads = []headCase{
	{name: "HTTP/2.0 is an unsupported version", in: "HTTP/2.0 200 OK\r\n\r\n", err: ErrBadVersion},
	{name: "HTTP/0.9 is an unsupported version", in: "HTTP/0.9 200 OK\r\n\r\n", err: ErrBadVersion},
	{name: "HTTP/2 without a minor version is an unsupported version", in: "HTTP/2 200\r\n\r\n", err: ErrBadVersion},
	{name: "a lower-case protocol name is refused", in: "http/1.1 200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a non-HTTP greeting is refused before its line ends", in: "SSH-2.0-OpenSSH", err: ErrBadStatusLine},
	{name: "an empty first line is refused", in: "\r\nHTTP/1.1 200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a minor version that is not a digit is refused", in: "HTTP/1.x 200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a two-digit major version is refused", in: "HTTP/11.1 200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a two-digit status code is refused", in: "HTTP/1.1 20 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a four-digit status code is refused", in: "HTTP/1.1 2000 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a status code below 100 is refused", in: "HTTP/1.1 099 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "two spaces before the status code are refused", in: "HTTP/1.1  200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a tab before the status code is refused", in: "HTTP/1.1\t200 OK\r\n\r\n", err: ErrBadStatusLine},
	{name: "a status line cut after the version is refused", in: "HTTP/1.1\r\n\r\n", err: ErrBadStatusLine},
	{name: "a NUL in the reason phrase is refused", in: "HTTP/1.1 200 O\x00K\r\n\r\n", err: ErrBadStatusLine},
	{name: "a bare CR in the reason phrase is refused", in: "HTTP/1.1 200 O\rK\r\n\r\n", err: ErrBadStatusLine},
	{name: "obs-fold is refused", in: "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n", err: ErrBadHeader},
	{name: "a line starting with a tab is refused", in: "HTTP/1.1 200 OK\r\n\tX-A: 1\r\n\r\n", err: ErrBadHeader},
	{name: "whitespace before the colon is refused", in: "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", err: ErrBadHeader},
	{name: "a header line without a colon is refused", in: "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", err: ErrBadHeader},
	{name: "an empty header name is refused", in: "HTTP/1.1 200 OK\r\n: v\r\n\r\n", err: ErrBadHeader},
	{name: "a header name with a non-token byte is refused", in: "HTTP/1.1 200 OK\r\nX(y): v\r\n\r\n", err: ErrBadHeader},
	{name: "a NUL in a header value is refused", in: "HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n", err: ErrBadHeader},
	{name: "a bare CR in a header value is refused", in: "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", err: ErrBadHeader},
	{name: "a CR before CRLF ending a header line is refused", in: "HTTP/1.1 200 OK\r\nX: a\r\r\n\r\n", err: ErrBadHeader},
	{name: "a DEL in a header value is refused", in: "HTTP/1.1 200 OK\r\nX: \x7f\r\n\r\n", err: ErrBadHeader},
	{name: "a blank line made of CR CR LF is a header line without a colon", in: "HTTP/1.1 200 OK\r\n\r\r\n", err: ErrBadHeader},
	{name: "a non-numeric Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", err: ErrBadContentLength},
	{name: "an empty Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", err: ErrBadContentLength},
	{name: "a negative Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: ErrBadContentLength},
	{name: "a signed Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n", err: ErrBadContentLength},
	{name: "a Content-Length with inner space is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", err: ErrBadContentLength},
	{name: "a hex Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", err: ErrBadContentLength},
	{name: "an overflowing Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n", err: ErrBadContentLength},
	{name: "a very long Content-Length is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999999\r\n\r\n", err: ErrBadContentLength},
	{name: "a Content-Length list of differing values is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", err: ErrBadContentLength},
	{name: "a Content-Length list with an empty element is refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 5,\r\n\r\n", err: ErrBadContentLength},
	{name: "differing Content-Length fields are refused", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\n", err: ErrBadContentLength},
	{name: "a Transfer-Encoding that is not a token is refused", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked x\r\n\r\n", err: ErrBadHeader},
	{name: "a malformed header is refused before the head is complete", in: "HTTP/1.1 200 OK\r\nBad Header: 1\r\n", err: ErrBadHeader},
}

// parseCheck parses in and compares the outcome with c.
func parseCheck(t *testing.T, c headCase, in string, maxHead int) {
	t.Helper()
	var h ResponseHead
	n, err := ParseResponseHead([]byte(in), maxHead, &h)
	if err != c.err {
		t.Fatalf("ParseResponseHead(%q) error = %v, want %v", in, err, c.err)
	}
	if err != nil {
		if n != 0 {
			t.Fatalf("ParseResponseHead(%q) = %d with error %v, want 0", in, n, err)
		}
		return
	}
	want := c.want
	if want.HeadLen == 0 {
		want.HeadLen = len(c.in)
	}
	if n != want.HeadLen || h != want {
		t.Fatalf("ParseResponseHead(%q) = %d, %+v\nwant %d, %+v", in, n, h, want.HeadLen, want)
	}
}

func TestParseResponseHead(t *testing.T) {
	for _, c := range append(validHeads[:len(validHeads):len(validHeads)], malformedHeads...) {
		t.Run(c.name, func(t *testing.T) {
			parseCheck(t, c, c.in, 0)
		})
	}
}

func TestParseResponseHeadIncrementally(t *testing.T) {
	for _, c := range validHeads {
		t.Run(c.name+" after every split", func(t *testing.T) {
			headLen := c.want.HeadLen
			if headLen == 0 {
				headLen = len(c.in)
			}
			for i := range headLen {
				var h ResponseHead
				if n, err := ParseResponseHead([]byte(c.in[:i]), 0, &h); err != ErrIncomplete {
					t.Fatalf("ParseResponseHead(%q) = %d, %v, want ErrIncomplete", c.in[:i], n, err)
				}
			}
			for i := headLen; i <= len(c.in); i++ {
				parseCheck(t, c, c.in[:i], 0)
			}
		})
	}
	for _, c := range malformedHeads {
		t.Run(c.name+" whatever the split", func(t *testing.T) {
			for i := range len(c.in) {
				var h ResponseHead
				_, err := ParseResponseHead([]byte(c.in[:i]), 0, &h)
				if err != ErrIncomplete && err != c.err {
					t.Fatalf("ParseResponseHead(%q) error = %v, want ErrIncomplete or %v", c.in[:i], err, c.err)
				}
			}
		})
	}
}

func TestParseResponseHeadLimit(t *testing.T) {
	const head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	cases := []struct {
		name    string
		in      string
		maxHead int
		err     error
	}{
		{name: "a head of exactly maxHead bytes is accepted", in: head, maxHead: len(head)},
		{name: "a head one byte over maxHead is too large", in: head, maxHead: len(head) - 1, err: ErrHeadTooLarge},
		{name: "a head far over maxHead is too large", in: head, maxHead: 20, err: ErrHeadTooLarge},
		{name: "a partial head shorter than maxHead is incomplete", in: head[:30], maxHead: 31, err: ErrIncomplete},
		{name: "a partial head filling maxHead is too large", in: head[:30], maxHead: 30, err: ErrHeadTooLarge},
		{name: "a partial head beyond maxHead is too large", in: head[:30], maxHead: 29, err: ErrHeadTooLarge},
		{name: "a partial status line filling maxHead is too large", in: "HTTP/1.1 200", maxHead: 12, err: ErrHeadTooLarge},
		{name: "a malformed line within maxHead wins over the limit", in: "HTTP/1.1 200 OK\r\nX y: 1\r\nabcdef", maxHead: 30, err: ErrBadHeader},
		{name: "a malformed line beyond maxHead is not seen", in: "HTTP/1.1 200 OK\r\nX: 1\r\nX y: 1\r\n\r\n", maxHead: 24, err: ErrHeadTooLarge},
		{name: "a zero maxHead means DefaultMaxHead", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", DefaultMaxHead/6) + "\r\n", err: ErrHeadTooLarge},
		{name: "a negative maxHead means DefaultMaxHead", in: head, maxHead: -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h ResponseHead
			n, err := ParseResponseHead([]byte(c.in), c.maxHead, &h)
			if err != c.err {
				t.Fatalf("ParseResponseHead(%q, %d) = %d, %v, want error %v", short(c.in), c.maxHead, n, err, c.err)
			}
		})
	}
}

// short abbreviates long test inputs in failure messages.
func short(s string) string {
	if len(s) > 200 {
		return s[:100] + "..." + s[len(s)-100:]
	}
	return s
}

// benchHead is a typical response head: what a small Go server sends for "Hello, Go!".
const benchHead = "HTTP/1.1 200 OK\r\n" +
	"Date: Sat, 22 Nov 2025 01:30:00 GMT\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 10\r\n" +
	"Server: gust\r\n" +
	"\r\n"

func BenchmarkParseResponseHead(b *testing.B) {
	buf := []byte(benchHead + "Hello, Go!")
	var h ResponseHead
	b.ReportAllocs()
	b.SetBytes(int64(len(benchHead)))
	for b.Loop() {
		if _, err := ParseResponseHead(buf, 4096, &h); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseResponseHeadEventStream(t *testing.T) {
	for _, tc := range []struct {
		ctype string
		want  bool
	}{
		{"text/event-stream", true},
		{"Text/Event-Stream", true},
		{"text/event-stream; charset=utf-8", true},
		{"text/event-stream ;charset=utf-8", true},
		{"text/event-streams", false},
		{"text/plain", false},
		{"application/json", false},
		{"", false},
	} {
		raw := "HTTP/1.1 200 OK\r\nContent-Type: " + tc.ctype + "\r\n\r\n"
		var h ResponseHead
		if _, err := ParseResponseHead([]byte(raw), 0, &h); err != nil {
			t.Fatalf("%q: %v", tc.ctype, err)
		}
		if h.EventStream != tc.want {
			t.Errorf("Content-Type %q: EventStream %v, want %v", tc.ctype, h.EventStream, tc.want)
		}
	}
}
