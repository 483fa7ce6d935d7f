package http1

import "testing"

func TestBody(t *testing.T) {
	cases := []struct {
		name        string
		in          string
		headRequest bool
		want        BodyKind
	}{
		{"a Content-Length response has a body of that length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, BodyLength},
		{"a zero Content-Length means no body", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, BodyNone},
		{"a response without framing fields runs until close", "HTTP/1.1 200 OK\r\n\r\n", false, BodyUntilClose},
		{"an HTTP/1.0 response without Content-Length runs until close", "HTTP/1.0 200 OK\r\n\r\n", false, BodyUntilClose},
		{"a chunked response is chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false, BodyChunked},
		{"chunked wins over Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", false, BodyChunked},
		{"chunked wins over a zero Content-Length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", false, BodyChunked},
		{"a final coding other than chunked runs until close", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, BodyUntilClose},
		{"a final coding other than chunked ignores Content-Length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 5\r\n\r\n", false, BodyUntilClose},
		{"an empty Transfer-Encoding runs until close", "HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\nContent-Length: 5\r\n\r\n", false, BodyUntilClose},
		{"a response to HEAD has no body despite Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true, BodyNone},
		{"a response to HEAD has no body despite chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true, BodyNone},
		{"a response to HEAD without framing fields has no body", "HTTP/1.1 200 OK\r\n\r\n", true, BodyNone},
		{"a 204 has no body despite Content-Length", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false, BodyNone},
		{"a 204 has no body despite chunked", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", false, BodyNone},
		{"a 304 has no body despite Content-Length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", false, BodyNone},
		{"a 100 has no body", "HTTP/1.1 100 Continue\r\n\r\n", false, BodyNone},
		{"a 101 has no body", "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n", false, BodyNone},
		{"a 103 has no body", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n", false, BodyNone},
		{"a 199 has no body", "HTTP/1.1 199 Whatever\r\n\r\n", false, BodyNone},
		{"a 205 with Content-Length 0 has no body", "HTTP/1.1 205 Reset Content\r\nContent-Length: 0\r\n\r\n", false, BodyNone},
		{"a 404 with Content-Length has a body", "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n", false, BodyLength},
		{"a 500 without framing fields runs until close", "HTTP/1.1 500 Oops\r\n\r\n", false, BodyUntilClose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h ResponseHead
			if _, err := ParseResponseHead([]byte(c.in), 0, &h); err != nil {
				t.Fatalf("ParseResponseHead(%q): %v", c.in, err)
			}
			if got := h.Body(c.headRequest); got != c.want {
				t.Errorf("Body(%v) of %q = %v, want %v", c.headRequest, c.in, got, c.want)
			}
		})
	}
}

func TestBodyKindString(t *testing.T) {
	cases := []struct {
		kind BodyKind
		want string
	}{
		{BodyNone, "BodyNone"},
		{BodyLength, "BodyLength"},
		{BodyChunked, "BodyChunked"},
		{BodyUntilClose, "BodyUntilClose"},
		{BodyKind(200), "BodyKind(invalid)"},
	}
	for _, c := range cases {
		t.Run(c.want+" names itself", func(t *testing.T) {
			if got := c.kind.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
		})
	}
}
