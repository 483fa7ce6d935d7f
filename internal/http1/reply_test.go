package http1

import (
	"errors"
	"net/url"
	"testing"
)

func TestAppendReply(t *testing.T) {
	date := []byte("Mon, 02 Jan 2006 15:04:05 GMT")
	tests := []struct {
		name string
		r    Reply
		want string
	}{
		{"a body gets a length and a default type",
			Reply{Status: 200, Server: true, Date: date, Length: 5},
			"HTTP/1.1 200 OK\r\nServer: gust\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n"},
		{"the handler's fields go as given, and its type replaces the default",
			Reply{Status: 201, Date: date, Header: []byte("Content-Type: a/b\r\nX: y\r\n"), HasContentType: true, Length: 2},
			"HTTP/1.1 201 Created\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Type: a/b\r\nX: y\r\nContent-Length: 2\r\n\r\n"},
		{"an empty body has no type",
			Reply{Status: 200, Date: date},
			"HTTP/1.1 200 OK\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Length: 0\r\n\r\n"},
		{"a chunked body, closing",
			Reply{Status: 200, Date: date, Length: -1, Close: true, KeepAlive: true},
			"HTTP/1.1 200 OK\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"},
		{"an HTTP/1.0 stream: keep-alive said, no framing",
			Reply{Status: 200, Date: date, Length: -1, KeepAlive: true, Unframed: true},
			"HTTP/1.1 200 OK\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: keep-alive\r\n\r\n"},
		{"204 and 304 carry no framing",
			Reply{Status: 304, Date: date, Length: 10},
			"HTTP/1.1 304 Not Modified\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendReply([]byte("x"), &tt.r)); got != "x"+tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, "x"+tt.want)
			}
		})
	}
}

func TestAppendBodyPartsAndInterimResponses(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"a chunk is its length in hex, the data and CRLF", AppendChunk(nil, make([]byte, 26)), "1a\r\n" + string(make([]byte, 26)) + "\r\n"},
		{"the last chunk has no trailers", AppendLastChunk([]byte("a")), "a0\r\n\r\n"},
		{"100 Continue", AppendContinue(nil), "HTTP/1.1 100 Continue\r\n\r\n"},
		{"an error closes and says its reason", AppendError(nil, 413),
			"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 28\r\n\r\n413 Request Entity Too Large"},
		{"an error without a reason phrase", AppendError(nil, 599),
			"HTTP/1.1 599 \r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 4\r\n\r\n599 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.got) != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestValidFieldAndParseLength(t *testing.T) {
	fields := []struct {
		name, value string
		ok          bool
	}{
		{"X-Ok", "any value\tat all", true},
		{"", "v", false},
		{"Bad Name", "v", false},
		{"Bad:Name", "v", false},
		{"X", "split\r\nX-Evil: 1", false},
		{"X", "nul\x00", false},
	}
	for _, f := range fields {
		if got := ValidField([]byte(f.name), []byte(f.value)); got != f.ok {
			t.Errorf("ValidField(%q, %q) = %v, want %v", f.name, f.value, got, f.ok)
		}
	}
	lengths := []struct {
		in   string
		want int64
	}{{"0", 0}, {"1234", 1234}, {"", -1}, {"12a", -1}, {"-1", -1}, {"1234567890123456789", -1}, {"123456789012345678", 123456789012345678}}
	for _, l := range lengths {
		if got := ParseLength([]byte(l.in)); got != l.want {
			t.Errorf("ParseLength(%q) = %d, want %d", l.in, got, l.want)
		}
	}
}

func TestTokenAndCaseHelpers(t *testing.T) {
	folds := []struct {
		a, b string
		want bool
	}{
		{"Content-Length", "content-length", true},
		{"CLOSE", "close", true},
		{"close", "CLOSE", true},
		{"[", "{", false}, // not letters: no folding
		{"@", "`", false},
		{"close", "closed", false},
	}
	for _, f := range folds {
		if got := EqualFold([]byte(f.a), f.b); got != f.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", f.a, f.b, got, f.want)
		}
		if got := EqualFold(f.a, f.b); got != f.want {
			t.Errorf("EqualFold(string %q, %q) = %v, want %v", f.a, f.b, got, f.want)
		}
	}
	tokens := []struct {
		in   string
		want bool
	}{{"GET", true}, {"X-Custom_1~", true}, {"", false}, {"GE T", false}, {"a/b", false}, {"é", false}}
	for _, tk := range tokens {
		if got := IsToken(tk.in); got != tk.want {
			t.Errorf("IsToken(%q) = %v, want %v", tk.in, got, tk.want)
		}
	}
	host := "[::1" // an unclosed IPv6 literal
	_, err := url.Parse("http://" + host)
	if inner := UnwrapURLError(err); inner == err || inner == nil {
		t.Errorf("UnwrapURLError(%v) = %v, want the reason inside", err, inner)
	}
	plain := errors.New("plain")
	if UnwrapURLError(plain) != plain {
		t.Error("UnwrapURLError changed an error that is not a *url.Error")
	}
}
