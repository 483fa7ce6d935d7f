package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestAppendRequest(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{
			name: "the zero Request is a GET of / with an empty Host",
			want: "GET / HTTP/1.1\r\nHost: \r\n\r\n",
		},
		{
			name: "a GET carries its target, Host and User-Agent",
			req:  Request{Target: "/path?q=1", Host: "example.com:8080", UserAgent: "gust/1"},
			want: "GET /path?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: gust/1\r\n\r\n",
		},
		{
			name: "extra header fields follow in order",
			req:  Request{Host: "h", Header: [][2]string{{"X-B", "2"}, {"X-A", "1"}, {"X-B", "3"}}},
			want: "GET / HTTP/1.1\r\nHost: h\r\nX-B: 2\r\nX-A: 1\r\nX-B: 3\r\n\r\n",
		},
		{
			name: "a POST with a body announces its length",
			req:  Request{Method: "POST", Target: "/submit", Host: "h", Body: []byte("a=1&b=2"), Header: [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}},
			want: "POST /submit HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2",
		},
		{
			name: "a POST without a body announces a zero length",
			req:  Request{Method: "POST", Host: "h"},
			want: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "a PUT without a body announces a zero length",
			req:  Request{Method: "PUT", Host: "h"},
			want: "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "a PATCH without a body announces a zero length",
			req:  Request{Method: "PATCH", Host: "h"},
			want: "PATCH / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "a DELETE without a body has no Content-Length",
			req:  Request{Method: "DELETE", Host: "h"},
			want: "DELETE / HTTP/1.1\r\nHost: h\r\n\r\n",
		},
		{
			name: "a GET with a body announces its length",
			req:  Request{Host: "h", Body: []byte("{}")},
			want: "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
		},
		{
			name: "Close adds Connection: close",
			req:  Request{Host: "h", Close: true},
			want: "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
		},
		{
			name: "a Host header field replaces the default and comes first",
			req:  Request{Host: "default", Header: [][2]string{{"X-A", "1"}, {"host", "override"}}},
			want: "GET / HTTP/1.1\r\nHost: override\r\nX-A: 1\r\n\r\n",
		},
		{
			name: "a second Host header field is dropped",
			req:  Request{Header: [][2]string{{"Host", "a"}, {"X-A", "1"}, {"HOST", "b"}}},
			want: "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\r\n",
		},
		{
			name: "a Content-Length header field replaces the default",
			req:  Request{Method: "POST", Host: "h", Body: []byte("abc"), Header: [][2]string{{"content-length", "3"}}},
			want: "POST / HTTP/1.1\r\nHost: h\r\ncontent-length: 3\r\n\r\nabc",
		},
		{
			name: "a Transfer-Encoding header field suppresses Content-Length",
			req:  Request{Method: "POST", Host: "h", Body: []byte("3\r\nabc\r\n0\r\n\r\n"), Header: [][2]string{{"Transfer-Encoding", "chunked"}}},
			want: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		},
		{
			name: "a Connection header field replaces Connection: close",
			req:  Request{Host: "h", Close: true, Header: [][2]string{{"CONNECTION", "keep-alive"}}},
			want: "GET / HTTP/1.1\r\nHost: h\r\nCONNECTION: keep-alive\r\n\r\n",
		},
		{
			name: "a User-Agent header field replaces UserAgent",
			req:  Request{Host: "h", UserAgent: "gust/1", Header: [][2]string{{"user-agent", "curl/8"}}},
			want: "GET / HTTP/1.1\r\nHost: h\r\nuser-agent: curl/8\r\n\r\n",
		},
		{
			name: "every default comes in the documented order",
			req: Request{Method: "POST", Target: "/x", Host: "h", UserAgent: "ua", Close: true, Body: []byte("b"),
				Header: [][2]string{{"Accept", "*/*"}}},
			want: "POST /x HTTP/1.1\r\nHost: h\r\nUser-Agent: ua\r\nAccept: */*\r\nContent-Length: 1\r\nConnection: close\r\n\r\nb",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prefix := "previous request"
			got := AppendRequest([]byte(prefix), &c.req)
			if string(got[:len(prefix)]) != prefix {
				t.Fatalf("AppendRequest overwrote dst: %q", got)
			}
			got = got[len(prefix):]
			if string(got) != c.want {
				t.Fatalf("AppendRequest =\n%q\nwant\n%q", got, c.want)
			}
			// net/http must read the same request back.
			r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
			if err != nil {
				t.Fatalf("net/http cannot read %q: %v", got, err)
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				t.Fatalf("net/http cannot read the body of %q: %v", got, err)
			}
			if wantBody := strings.SplitN(c.want, "\r\n\r\n", 2)[1]; r.Header.Get("Transfer-Encoding") == "" && r.TransferEncoding == nil && string(body) != wantBody {
				t.Fatalf("net/http read body %q, want %q", body, wantBody)
			}
		})
	}
}

func TestValidateHeader(t *testing.T) {
	cases := []struct {
		name, field, value string
		ok                 bool
	}{
		{"an ordinary field is valid", "Accept", "*/*", true},
		{"a name of every token byte is valid", "!#$%&'*+-.^_`|~09azAZ", "v", true},
		{"an empty value is valid", "X-Empty", "", true},
		{"a value with tabs and spaces is valid", "X", " a\tb ", true},
		{"a value with UTF-8 is valid", "X", "café", true},
		{"an empty name is invalid", "", "v", false},
		{"a name with a space is invalid", "X Y", "v", false},
		{"a name with a colon is invalid", "X:", "v", false},
		{"a name with UTF-8 is invalid", "Café", "v", false},
		{"a name with a trailing space is invalid", "X ", "v", false},
		{"a value with CR is invalid", "X", "a\rb", false},
		{"a value with LF is invalid", "X", "a\nb", false},
		{"a value with CRLF smuggling a header is invalid", "X", "a\r\nEvil: 1", false},
		{"a value with NUL is invalid", "X", "a\x00b", false},
		{"a value with another control byte is invalid", "X", "a\x01b", false},
		{"a value with ESC is invalid", "X", "\x1b[31m", false},
		{"a value with DEL is invalid", "X", "a\x7fb", false},
		{"a value with obs-text is valid", "X", "\xff", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateHeader(c.field, c.value)
			if (err == nil) != c.ok {
				t.Fatalf("ValidateHeader(%q, %q) = %v, want ok %v", c.field, c.value, err, c.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "http1: ") {
				t.Errorf("error %q does not say where it comes from", err)
			}
		})
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	r := &Request{
		Method:    "POST",
		Target:    "/api/v1/items?limit=10",
		Host:      "localhost:8080",
		UserAgent: "gust/0.1",
		Header:    [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/json"}},
		Body:      []byte(`{"name":"gust"}`),
	}
	buf := AppendRequest(nil, r)
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		buf = AppendRequest(buf[:0], r)
	}
}
