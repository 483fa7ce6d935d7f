package http1

import (
	"bytes"
	"fmt"
	"github.com/gust-http/gust/internal/head"
	"strconv"
	"strings"
	"testing"
)

// requestCase is one request head and what ParseRequestHead must make of it:
// the fields of want for a valid head, or err and the status StatusForError
// gives it for a malformed one.
type requestCase struct {
	name   string
	in     string
	want   requestWant
	err    error
	status int
}

// requestWant describes a parsed request head; zero fields take the defaults
// noted, so that each case spells out only what it is about.
type requestWant struct {
	method    string   // "" means "GET"
	target    string   // "" means "/"
	path      string   // "" means the target up to '?' for the origin-form, else the target
	query     string   // with its '?'; "" means Query is nil
	host      string   // "" means "example.com", unless noHost or emptyHost
	noHost    bool     // Host is nil
	emptyHost bool     // Host is empty but not nil
	version   string   // "" means "1.1"
	cl        string   // "" means no Content-Length
	chunked   bool     //
	close     bool     //
	expect100 bool     //
	headLen   int      // 0 means len(in)
	fields    []string // "Name: Value" for every field, in order; nil means unchecked
}

// validRequests are request heads ParseRequestHead must accept.
var validRequests = []requestCase{
	{name: "a minimal HTTP/1.1 request parses", in: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{fields: []string{"Host: example.com"}}},
	{name: "a typical load generator request parses", in: benchWrkRequest,
		want: requestWant{host: "127.0.0.1:8080", fields: []string{"Host: 127.0.0.1:8080", "User-Agent: hey/0.0.1", "Accept: */*"}}},
	{name: "a typical browser request parses", in: benchBrowserRequest,
		want: requestWant{target: "/static/app.js?v=3", query: "?v=3", host: "example.com"}},
	{name: "an HTTP/1.0 request without Host parses and closes", in: "GET / HTTP/1.0\r\n\r\n",
		want: requestWant{version: "1.0", noHost: true, close: true, fields: []string{}}},
	{name: "an HTTP/1.0 request with keep-alive stays open", in: "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
		want: requestWant{version: "1.0", noHost: true}},
	{name: "an HTTP/1.0 request with Host reports it", in: "GET / HTTP/1.0\r\nHost: example.com\r\n\r\n",
		want: requestWant{version: "1.0", close: true}},
	{name: "Connection close closes an HTTP/1.1 connection", in: "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n",
		want: requestWant{close: true}},
	{name: "Connection options match case-insensitively in a list", in: "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade , CLOSE\r\n\r\n",
		want: requestWant{close: true}},
	{name: "Connection keep-alive alone keeps an HTTP/1.1 connection open", in: "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive, Upgrade\r\n\r\n",
		want: requestWant{}},
	{name: "close wins over keep-alive in HTTP/1.0", in: "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
		want: requestWant{version: "1.0", noHost: true, close: true}},
	{name: "a higher HTTP/1 minor version is accepted", in: "GET / HTTP/1.2\r\nHost: example.com\r\n\r\n",
		want: requestWant{version: "1.2"}},
	{name: "a lower-case method is a valid token", in: "get / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{method: "get"}},
	{name: "an extension method is accepted", in: "PROPFIND /dav/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{method: "PROPFIND", target: "/dav/"}},
	{name: "the query is split from the path", in: "GET /search?q=go&lang=en HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/search?q=go&lang=en", query: "?q=go&lang=en"}},
	{name: "an empty query is empty, not absent", in: "GET /path? HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/path?", query: "?"}},
	{name: "only the first question mark splits the query", in: "GET /a?b?c HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/a?b?c", query: "?b?c"}},
	{name: "percent-encoding in the path is accepted", in: "GET /a%20b%2F HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/a%20b%2F"}},
	{name: "a lone percent sign in the query is left to the application", in: "GET /?p=100% HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/?p=100%", query: "?p=100%"}},
	{name: "characters browsers leave unescaped in queries are accepted", in: "GET /?a=|{}^`\\\"<> HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "/?a=|{}^`\\\"<>", query: "?a=|{}^`\\\"<>"}},
	{name: "a path starting with two slashes is an origin-form path", in: "GET //evil.example/x HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "//evil.example/x"}},
	{name: "OPTIONS may use the asterisk-form", in: "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{method: "OPTIONS", target: "*"}},
	{name: "CONNECT uses the authority-form, which gives the host", in: "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n",
		want: requestWant{method: "CONNECT", target: "example.org:443", host: "example.org:443"}},
	{name: "CONNECT to an IPv6 address parses", in: "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n",
		want: requestWant{method: "CONNECT", target: "[2001:db8::1]:443", host: "[2001:db8::1]:443"}},
	{name: "the absolute-form's authority replaces the Host field", in: "GET http://example.org:8080/x?y=1 HTTP/1.1\r\nHost: other.example\r\n\r\n",
		want: requestWant{target: "http://example.org:8080/x?y=1", host: "example.org:8080"}},
	{name: "the absolute-form scheme matches case-insensitively", in: "GET HTTPS://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "HTTPS://example.com/"}},
	{name: "the absolute-form's host may hold sub-delims", in: "GET http://a_b~!$&'()*+,;=.example:80/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "http://a_b~!$&'()*+,;=.example:80/", host: "a_b~!$&'()*+,;=.example:80"}},
	{name: "the absolute-form's host may be an IPv6 literal", in: "GET http://[2001:db8::ffff:192.0.2.1]:8080/p%2F?q HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "http://[2001:db8::ffff:192.0.2.1]:8080/p%2F?q", host: "[2001:db8::ffff:192.0.2.1]:8080"}},
	{name: "the absolute-form may have an empty path", in: "GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "http://example.com"}},
	{name: "the absolute-form may have a query without a path", in: "GET http://example.com?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{target: "http://example.com?x=1"}},
	{name: "the absolute-form gives the host to an HTTP/1.0 request without Host", in: "GET http://example.com/ HTTP/1.0\r\n\r\n",
		want: requestWant{target: "http://example.com/", version: "1.0", close: true}},
	{name: "an empty line before the request line is skipped but counted", in: "\r\nGET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{}},
	{name: "several empty lines before the request line are skipped", in: "\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: requestWant{}},
	{name: "the body after the head is not part of it", in: "POST /form HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello",
		want: requestWant{method: "POST", target: "/form", cl: "5", headLen: 61}},
	{name: "the next pipelined request is not part of the head", in: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\nGET /2 HTTP/1.1\r\n",
		want: requestWant{headLen: 37}},
	{name: "Content-Length zero means no body", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n",
		want: requestWant{method: "POST", cl: "0"}},
	{name: "Content-Length with leading zeros is decimal", in: "PUT / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 007\r\n\r\n",
		want: requestWant{method: "PUT", cl: "7"}},
	{name: "the largest Content-Length parses", in: "PUT / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 9223372036854775807\r\n\r\n",
		want: requestWant{method: "PUT", cl: "9223372036854775807"}},
	{name: "repeated identical Content-Length fields are accepted", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\nContent-Length:  3 \r\n\r\n",
		want: requestWant{method: "POST", cl: "3"}},
	{name: "Transfer-Encoding chunked frames the body", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n",
		want: requestWant{method: "POST", chunked: true}},
	{name: "the chunked coding matches case-insensitively", in: "POST / HTTP/1.1\r\nHost: example.com\r\ntransfer-encoding: CHUNKED \r\n\r\n",
		want: requestWant{method: "POST", chunked: true}},
	{name: "Expect 100-continue is reported", in: "PUT /f HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n",
		want: requestWant{method: "PUT", target: "/f", cl: "10", expect100: true}},
	{name: "Expect 100-continue matches case-insensitively", in: "PUT /f HTTP/1.1\r\nHost: example.com\r\nexpect: 100-Continue\r\nContent-Length: 1\r\n\r\n",
		want: requestWant{method: "PUT", target: "/f", cl: "1", expect100: true}},
	{name: "Expect 100-continue is ignored in HTTP/1.0", in: "PUT /f HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
		want: requestWant{method: "PUT", target: "/f", version: "1.0", noHost: true, cl: "1", close: true}},
	{name: "an unknown expectation is ignored", in: "GET / HTTP/1.1\r\nHost: example.com\r\nExpect: 200-ok\r\n\r\n",
		want: requestWant{}},
	{name: "header names match case-insensitively", in: "POST / HTTP/1.1\r\nhOsT: example.com\r\ncOnTeNt-LeNgTh: 12\r\nCONNECTION: CLOSE\r\n\r\n",
		want: requestWant{method: "POST", cl: "12", close: true}},
	{name: "whitespace around a value is not part of it", in: "GET / HTTP/1.1\r\nHost: \t example.com \t\r\nX-A:b\r\n\r\n",
		want: requestWant{fields: []string{"Host: example.com", "X-A: b"}}},
	{name: "a value may be empty", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX-Empty:\r\nX-Blank:  \r\n\r\n",
		want: requestWant{fields: []string{"Host: example.com", "X-Empty: ", "X-Blank: "}}},
	{name: "a value may hold tabs, colons and obs-text", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX-Text: a\tb:c caf\xc3\xa9\r\n\r\n",
		want: requestWant{fields: []string{"Host: example.com", "X-Text: a\tb:c caf\xc3\xa9"}}},
	{name: "repeated fields are all kept in order", in: "GET / HTTP/1.1\r\nHost: example.com\r\nAccept: a\r\nX: 1\r\naccept: b\r\n\r\n",
		want: requestWant{fields: []string{"Host: example.com", "Accept: a", "X: 1", "accept: b"}}},
	{name: "a Host with a port parses", in: "GET / HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
		want: requestWant{host: "example.com:8080"}},
	{name: "a Host with an empty port parses", in: "GET / HTTP/1.1\r\nHost: example.com:\r\n\r\n",
		want: requestWant{host: "example.com:"}},
	{name: "an IPv4 Host parses", in: "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
		want: requestWant{host: "127.0.0.1:8080"}},
	{name: "an IPv6 Host parses", in: "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n",
		want: requestWant{host: "[::1]:8080"}},
	{name: "an IPv4-mapped IPv6 Host parses", in: "GET / HTTP/1.1\r\nHost: [::FFFF:192.0.2.1]\r\n\r\n",
		want: requestWant{host: "[::FFFF:192.0.2.1]"}},
	{name: "a Host with sub-delims and underscores parses", in: "GET / HTTP/1.1\r\nHost: my_host-1.local~!$&'()*+,;=\r\n\r\n",
		want: requestWant{host: "my_host-1.local~!$&'()*+,;="}},
	{name: "an empty Host is valid in HTTP/1.1", in: "GET / HTTP/1.1\r\nHost:\r\n\r\n",
		want: requestWant{emptyHost: true}},
}

// malformedRequests are request heads ParseRequestHead must refuse.
var malformedRequests = []requestCase{
	// Line endings.
	{name: "a bare LF ending the request line is refused", in: "GET / HTTP/1.1\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a bare LF ending a header line is refused", in: "GET / HTTP/1.1\r\nHost: example.com\nX: y\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a bare LF ending the head is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\n\n", err: ErrBadHeader, status: 400},
	{name: "a bare CR in a header value is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a bare CR in a header name is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX\r: a\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a bare CR ending the head is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\n\rX", err: ErrBadHeader, status: 400},
	{name: "a bare CR in the request line is refused", in: "GET /\r HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a bare CR before the request line is refused", in: "\rGET / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a bare LF before the request line is refused", in: "\nGET / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},

	// Header lines.
	{name: "obs-fold is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\r\n b\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "obs-fold with a tab is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\r\n\tb\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a space before the first header is refused", in: "GET / HTTP/1.1\r\n Host: example.com\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "whitespace between name and colon is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding : chunked\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a tab between name and colon is refused", in: "GET / HTTP/1.1\r\nHost\t: example.com\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a header line without a colon is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nNoColon\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "an empty header name is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\n: empty\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a header name that is not a token is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX(y): 1\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a NUL in a header value is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\x00b\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a NUL in a header name is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX\x00: a\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a control byte in a header value is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\x01b\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "DEL in a header value is refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nX: a\x7fb\r\n\r\n", err: ErrBadHeader, status: 400},
	{name: "a malformed header is refused before the head is complete", in: "GET / HTTP/1.1\r\nBad Header: 1\r\n", err: ErrBadHeader, status: 400},

	// Method.
	{name: "a method that is not a token is refused", in: "GE(T / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a NUL in the method is refused", in: "G\x00ET / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an empty method is refused", in: " / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a TLS handshake is refused at its first byte", in: "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", err: ErrBadRequestLine, status: 400},

	// Request line layout and request-target.
	{name: "two spaces after the method are refused", in: "GET  / HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "two spaces before the version are refused", in: "GET /  HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a tab as separator is refused", in: "GET\t/ HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a space in the target is refused", in: "GET /a b HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a control byte in the target is refused", in: "GET /a\x01b HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a NUL in the target is refused", in: "GET /a\x00 HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "DEL in the target is refused", in: "GET /a\x7f HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a non-ASCII byte in the target is refused", in: "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a fragment in the target is refused", in: "GET /a#b HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an empty target is refused", in: "GET  HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a malformed percent-encoding in the path is refused", in: "GET /a%zz HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a truncated percent-encoding in the path is refused", in: "GET /a%4 HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a relative target is refused", in: "GET index.html HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "the asterisk-form with GET is refused", in: "GET * HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "the authority-form with GET is refused", in: "GET example.com:80 HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "CONNECT with an origin-form target is refused", in: "CONNECT /x HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "CONNECT without a port is refused", in: "CONNECT example.com HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "CONNECT with an empty port is refused", in: "CONNECT example.com: HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form with another scheme is refused", in: "GET ftp://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form with userinfo is refused", in: "GET http://user@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form with an empty host is refused", in: "GET http:///x HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form without an authority is refused", in: "GET http:/x HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form with an unclosed IPv6 literal is refused", in: "GET http://[::1/ HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "an absolute-form with a malformed percent-encoding in the path is refused", in: "GET http://example.com/%g0 HTTP/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},

	// Version.
	{name: "a request line without a version (HTTP/0.9) is refused", in: "GET /\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a request line without a version but with a space is refused", in: "GET / \r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "HTTP/2.0 is not supported", in: "GET / HTTP/2.0\r\nHost: example.com\r\n\r\n", err: ErrBadVersion, status: 505},
	{name: "HTTP/3.0 is not supported", in: "GET / HTTP/3.0\r\nHost: example.com\r\n\r\n", err: ErrBadVersion, status: 505},
	{name: "HTTP/0.9 spelled out is not supported", in: "GET / HTTP/0.9\r\n\r\n", err: ErrBadVersion, status: 505},
	{name: "the HTTP/2 connection preface is not supported", in: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", err: ErrBadVersion, status: 505},
	{name: "a two-digit minor version is refused", in: "GET / HTTP/1.10\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a two-digit major version is refused", in: "GET / HTTP/11.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a version without a minor is refused", in: "GET / HTTP/1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a lower-case version is refused", in: "GET / http/1.1\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a non-digit minor version is refused", in: "GET / HTTP/1.x\r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},
	{name: "a space after the version is refused", in: "GET / HTTP/1.1 \r\nHost: example.com\r\n\r\n", err: ErrBadRequestLine, status: 400},

	// Host.
	{name: "an HTTP/1.1 request without Host is refused", in: "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "an absolute-form HTTP/1.1 request still needs Host", in: "GET http://example.com/ HTTP/1.1\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "two Host fields are refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nHost: evil.example\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "two identical Host fields are refused", in: "GET / HTTP/1.1\r\nHost: example.com\r\nhost: example.com\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "two Host fields are refused in HTTP/1.0", in: "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with a space is refused", in: "GET / HTTP/1.1\r\nHost: example.com evil.example\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with a slash is refused", in: "GET / HTTP/1.1\r\nHost: example.com/x\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with userinfo is refused", in: "GET / HTTP/1.1\r\nHost: user@example.com\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with a non-numeric port is refused", in: "GET / HTTP/1.1\r\nHost: example.com:80x\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with two ports is refused", in: "GET / HTTP/1.1\r\nHost: example.com:80:81\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with only a port is refused", in: "GET / HTTP/1.1\r\nHost: :80\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with percent-encoding is refused", in: "GET / HTTP/1.1\r\nHost: ex%61mple.com\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with obs-text is refused", in: "GET / HTTP/1.1\r\nHost: caf\xc3\xa9.example\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with an unclosed IPv6 literal is refused", in: "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with an IPv4 address in brackets is refused", in: "GET / HTTP/1.1\r\nHost: [127.0.0.1]\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with an IPv6 zone is refused", in: "GET / HTTP/1.1\r\nHost: [fe80::1%25eth0]\r\n\r\n", err: ErrBadHost, status: 400},
	{name: "a Host with junk after an IPv6 literal is refused", in: "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", err: ErrBadHost, status: 400},

	// Content-Length.
	{name: "a non-numeric Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: abc\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a negative Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: -1\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a Content-Length with a plus sign is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: +5\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a hexadecimal Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0x10\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a Content-Length with an inner space is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1 0\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "an empty Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: \r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "an overflowing Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 9223372036854775808\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "differing Content-Length fields are refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "Content-Length fields with the same number spelled differently are refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a Content-Length list of differing values is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5, 6\r\n\r\n", err: ErrBadContentLength, status: 400},
	{name: "a Content-Length list of identical values is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5, 5\r\n\r\n", err: ErrBadContentLength, status: 400},

	// Transfer-Encoding.
	{name: "Content-Length together with Transfer-Encoding is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "Transfer-Encoding together with a later Content-Length is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "a final coding other than chunked is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: gzip\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "chunked before another coding is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "chunked twice in one field is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "chunked in two fields is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "identity is not a transfer coding this server decodes", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: identity\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "a misspelled chunked is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: xchunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "a quoted chunked is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: \"chunked\"\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "chunked with a parameter is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked;x=1\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "an empty Transfer-Encoding is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding:\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "an empty element before chunked is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: , chunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "an empty element after chunked is refused", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked,\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "Transfer-Encoding in HTTP/1.0 is refused", in: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", err: ErrBadTransferEncoding, status: 400},
	{name: "a known coding before chunked is not implemented", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", err: ErrUnsupportedTE, status: 501},
	{name: "a coding in an earlier field before chunked is not implemented", in: "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: foo\r\nTransfer-Encoding: chunked\r\n\r\n", err: ErrUnsupportedTE, status: 501},
}

// checkRequest parses in (c.in or a prefix or extension of it) and compares
// the outcome with c.
func checkRequest(t *testing.T, c requestCase, in string, lim Limits) {
	t.Helper()
	var h head.Request
	n, err := ParseRequestHead([]byte(in), lim, &h)
	if err != c.err {
		t.Fatalf("ParseRequestHead(%q) error = %v, want %v", short(in), err, c.err)
	}
	if err != nil {
		if n != 0 {
			t.Fatalf("ParseRequestHead(%q) = %d with error %v, want 0", short(in), n, err)
		}
		if got := StatusForError(err); got != c.status {
			t.Fatalf("StatusForError(%v) = %d, want %d", err, got, c.status)
		}
		return
	}
	if diff := c.want.diff(c.in, &h); diff != "" {
		t.Fatalf("ParseRequestHead(%q):\n%s", short(in), diff)
	}
	if n != h.HeadLen {
		t.Fatalf("ParseRequestHead(%q) = %d, but HeadLen = %d", short(in), n, h.HeadLen)
	}
}

// diff returns a description of how h differs from w for the input in, or "".
func (w requestWant) diff(in string, h *head.Request) string {
	var d strings.Builder
	str := func(field string, got []byte, want string, wantNil bool) {
		if string(got) != want || (got == nil) != wantNil {
			fmt.Fprintf(&d, "%s = %q (nil %v), want %q (nil %v)\n", field, got, got == nil, want, wantNil)
		}
	}
	num := func(field string, got, want any) {
		if got != want {
			fmt.Fprintf(&d, "%s = %v, want %v\n", field, got, want)
		}
	}
	method, target, path, host, version := w.method, w.target, w.path, w.host, w.version
	if method == "" {
		method = "GET"
	}
	if target == "" {
		target = "/"
	}
	if path == "" {
		path = target
		if target[0] == '/' {
			path, _, _ = strings.Cut(target, "?")
		}
	}
	if host == "" && !w.noHost && !w.emptyHost {
		host = "example.com"
	}
	if version == "" {
		version = "1.1"
	}
	cl := int64(-1)
	if w.cl != "" {
		cl, _ = strconv.ParseInt(w.cl, 10, 64)
	}
	headLen := w.headLen
	if headLen == 0 {
		headLen = len(in)
	}
	str("Method", h.Method, method, false)
	str("Target", h.Target, target, false)
	str("Path", h.Path, path, false)
	str("Query", h.Query, strings.TrimPrefix(w.query, "?"), w.query == "")
	str("Host", h.Host, host, w.noHost)
	num("Version", fmt.Sprintf("%d.%d", h.Major, h.Minor), version)
	num("ContentLength", h.ContentLength, cl)
	num("Chunked", h.Chunked, w.chunked)
	num("Close", h.Close, w.close)
	num("Expect100", h.Expect100, w.expect100)
	num("HeadLen", h.HeadLen, headLen)
	if w.fields != nil {
		got := make([]string, len(h.Headers))
		for i, f := range h.Headers {
			got[i] = string(f.Name) + ": " + string(f.Value)
		}
		if strings.Join(got, "\n") != strings.Join(w.fields, "\n") {
			fmt.Fprintf(&d, "Headers = %q, want %q\n", got, w.fields)
		}
	}
	return d.String()
}

func TestParseRequestHead(t *testing.T) {
	for _, c := range append(validRequests[:len(validRequests):len(validRequests)], malformedRequests...) {
		t.Run(c.name, func(t *testing.T) {
			checkRequest(t, c, c.in, Limits{})
		})
	}
}

func TestParseRequestHeadIncrementally(t *testing.T) {
	for _, c := range validRequests {
		t.Run(c.name+" after every split", func(t *testing.T) {
			headLen := c.want.headLen
			if headLen == 0 {
				headLen = len(c.in)
			}
			for i := range headLen {
				var h head.Request
				if n, err := ParseRequestHead([]byte(c.in[:i]), Limits{}, &h); err != ErrIncomplete {
					t.Fatalf("ParseRequestHead(%q) = %d, %v, want ErrIncomplete", c.in[:i], n, err)
				}
			}
			for i := headLen; i <= len(c.in); i++ {
				checkRequest(t, c, c.in[:i], Limits{})
			}
		})
	}
	for _, c := range malformedRequests {
		t.Run(c.name+" whatever the split", func(t *testing.T) {
			for i := range len(c.in) {
				var h head.Request
				_, err := ParseRequestHead([]byte(c.in[:i]), Limits{}, &h)
				if err != ErrIncomplete && err != c.err {
					t.Fatalf("ParseRequestHead(%q) error = %v, want ErrIncomplete or %v", c.in[:i], err, c.err)
				}
			}
		})
	}
}

func TestParseRequestHeadLimits(t *testing.T) {
	const whole = "GET / HTTP/1.1\r\nHost: example.com\r\nX: 1\r\n\r\n"
	many := func(n int) string {
		return "GET / HTTP/1.1\r\nHost: example.com\r\n" + strings.Repeat("X: y\r\n", n-1) + "\r\n"
	}
	cases := []struct {
		name string
		in   string
		lim  Limits
		err  error
	}{
		{name: "a head of exactly MaxHeadBytes is accepted", in: whole, lim: Limits{MaxHeadBytes: len(whole)}},
		{name: "a head one byte over MaxHeadBytes is too large", in: whole, lim: Limits{MaxHeadBytes: len(whole) - 1}, err: ErrHeadTooLarge},
		{name: "a partial head shorter than MaxHeadBytes is incomplete", in: whole[:30], lim: Limits{MaxHeadBytes: 31}, err: ErrIncomplete},
		{name: "a partial head filling MaxHeadBytes is too large", in: whole[:30], lim: Limits{MaxHeadBytes: 30}, err: ErrHeadTooLarge},
		{name: "a request-target reaching MaxHeadBytes is too long a URI", in: "GET /aaaaaaaa", lim: Limits{MaxHeadBytes: 10}, err: ErrURITooLong},
		{name: "a request-target reaching MaxHeadBytes after empty lines is too long a URI", in: "\r\nGET /aaaaaaaa", lim: Limits{MaxHeadBytes: 10}, err: ErrURITooLong},
		{name: "a request-target reaching the default limit is too long a URI", in: "GET /" + strings.Repeat("a", 64<<10) + " HTTP/1.1\r\nHost: a\r\n\r\n", err: ErrURITooLong},
		{name: "a method reaching MaxHeadBytes is too long a method", in: "GETGETGETGET", lim: Limits{MaxHeadBytes: 10}, err: ErrMethodTooLong},
		{name: "a method reaching MaxHeadBytes after empty lines is too long a method", in: "\r\n\r\nGETGETGET", lim: Limits{MaxHeadBytes: 10}, err: ErrMethodTooLong},
		{name: "empty lines filling MaxHeadBytes make the head too large", in: "\r\n\r\n\r\n\r\n\r\n\r\n", lim: Limits{MaxHeadBytes: 10}, err: ErrHeadTooLarge},
		{name: "empty lines and a CR filling MaxHeadBytes make the head too large", in: "\r\n\r\n\r\n\r\n\r", lim: Limits{MaxHeadBytes: 9}, err: ErrHeadTooLarge},
		{name: "a version reaching MaxHeadBytes makes the head too large", in: "GET / HTTP/1.1", lim: Limits{MaxHeadBytes: 10}, err: ErrHeadTooLarge},
		{name: "empty lines before the request line count towards MaxHeadBytes", in: strings.Repeat("\r\n", 10) + whole, lim: Limits{MaxHeadBytes: len(whole) + 19}, err: ErrHeadTooLarge},
		{name: "a malformed line within MaxHeadBytes wins over the limit", in: "GET / HTTP/1.1\r\nX y: 1\r\nabcdef", lim: Limits{MaxHeadBytes: 28}, err: ErrBadHeader},
		{name: "a malformed line beyond MaxHeadBytes is not seen", in: "GET / HTTP/1.1\r\nX: 1\r\nX y: 1\r\n\r\n", lim: Limits{MaxHeadBytes: 23}, err: ErrHeadTooLarge},
		{name: "a zero MaxHeadBytes means 64 KiB", in: "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("y", 64<<10) + "\r\n\r\n", lim: Limits{MaxHeaders: 1000}, err: ErrHeadTooLarge},
		{name: "a head of 64 KiB is accepted by default", in: "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("y", 64<<10-32) + "\r\n\r\n"},
		{name: "exactly MaxHeaders fields are accepted", in: many(3), lim: Limits{MaxHeaders: 3}},
		{name: "one field over MaxHeaders is too many", in: many(4), lim: Limits{MaxHeaders: 3}, err: ErrTooManyHeaders},
		{name: "a zero MaxHeaders means 100", in: many(100)},
		{name: "101 fields are too many by default", in: many(101), err: ErrTooManyHeaders},
		{name: "negative limits mean the defaults", in: many(100), lim: Limits{MaxHeadBytes: -1, MaxHeaders: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h head.Request
			n, err := ParseRequestHead([]byte(c.in), c.lim, &h)
			if err != c.err {
				t.Fatalf("ParseRequestHead(%q, %+v) = %d, %v, want error %v", short(c.in), c.lim, n, err, c.err)
			}
			if err == nil && n != len(c.in) {
				t.Fatalf("ParseRequestHead(%q, %+v) = %d, want %d", short(c.in), c.lim, n, len(c.in))
			}
		})
	}
}

func TestParseRequestHeadReusesHeaders(t *testing.T) {
	var h head.Request
	if _, err := ParseRequestHead([]byte(benchBrowserRequest), Limits{}, &h); err != nil {
		t.Fatal(err)
	}
	backing := &h.Headers[:1][0]
	h.Close, h.Expect100 = true, true
	if _, err := ParseRequestHead([]byte("GET /a HTTP/1.1\r\nHost: b\r\n\r\n"), Limits{}, &h); err != nil {
		t.Fatal(err)
	}
	switch {
	case &h.Headers[0] != backing:
		t.Errorf("the second parse did not reuse the backing array of Headers")
	case len(h.Headers) != 1 || string(h.Headers[0].Value) != "b":
		t.Errorf("Headers = %q, want just Host: b", h.Headers)
	case h.Close || h.Expect100 || h.Query != nil || string(h.Path) != "/a":
		t.Errorf("fields of the first request survived: %+v", h)
	}
}

func TestRequestHeadGet(t *testing.T) {
	var h head.Request
	in := "GET / HTTP/1.1\r\nHost: example.com\r\nAccept: a\r\nX-Empty:\r\naccept: b\r\nContent-TYPE: text/plain\r\n\r\n"
	if _, err := ParseRequestHead([]byte(in), Limits{}, &h); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, field string
		want        string
		wantNil     bool
	}{
		{name: "Get finds a field by its exact name", field: "Host", want: "example.com"},
		{name: "Get ignores the case of the name asked for", field: "content-type", want: "text/plain"},
		{name: "Get ignores the case of the name sent", field: "Content-Type", want: "text/plain"},
		{name: "Get returns the first of repeated fields", field: "ACCEPT", want: "a"},
		{name: "Get returns an empty value, not nil, for a present empty field", field: "x-empty", want: ""},
		{name: "Get returns nil for an absent field", field: "Cookie", wantNil: true},
		{name: "Get does not match a prefix", field: "Hos", wantNil: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := h.Get(c.field)
			if string(got) != c.want || (got == nil) != c.wantNil {
				t.Errorf("Get(%q) = %q (nil %v), want %q (nil %v)", c.field, got, got == nil, c.want, c.wantNil)
			}
		})
	}
}

func TestRequestHeadBodyKindAndKeepAlive(t *testing.T) {
	cases := []struct {
		name      string
		in        string
		kind      BodyKind
		keepAlive bool
	}{
		{"a GET without framing fields has no body", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", BodyNone, true},
		{"a POST without framing fields has no body", "POST / HTTP/1.1\r\nHost: a\r\n\r\n", BodyNone, true},
		{"Content-Length zero means no body", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", BodyNone, true},
		{"a positive Content-Length means a body of that length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n", BodyLength, true},
		{"chunked means a chunked body", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", BodyChunked, true},
		{"HTTP/1.0 with a body does not keep the connection alive", "POST / HTTP/1.0\r\nContent-Length: 3\r\n\r\n", BodyLength, false},
		{"Connection close does not keep the connection alive", "POST / HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 3\r\n\r\n", BodyLength, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h head.Request
			if _, err := ParseRequestHead([]byte(c.in), Limits{}, &h); err != nil {
				t.Fatal(err)
			}
			if RequestBodyKind(&h) != c.kind || h.KeepAlive() != c.keepAlive {
				t.Errorf("BodyKind, KeepAlive = %v, %v, want %v, %v", RequestBodyKind(&h), h.KeepAlive(), c.kind, c.keepAlive)
			}
		})
	}
}

func TestStatusForError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"no error needs no response", nil, 0},
		{"an incomplete head needs no response yet", ErrIncomplete, 0},
		{"an I/O error needs no response", fmt.Errorf("read: %w", bytes.ErrTooLarge), 0},
		{"a head too large is 431", ErrHeadTooLarge, 431},
		{"a request-target too long is 414", ErrURITooLong, 414},
		{"a method too long is 501", ErrMethodTooLong, 501},
		{"too many fields is 431", ErrTooManyHeaders, 431},
		{"an unsupported version is 505", ErrBadVersion, 505},
		{"an unsupported transfer coding is 501", ErrUnsupportedTE, 501},
		{"a malformed request line is 400", ErrBadRequestLine, 400},
		{"a malformed header is 400", ErrBadHeader, 400},
		{"a bad Host is 400", ErrBadHost, 400},
		{"a bad Content-Length is 400", ErrBadContentLength, 400},
		{"a bad Transfer-Encoding is 400", ErrBadTransferEncoding, 400},
		{"a malformed chunked body is 400", ErrBadChunk, 400},
		{"a wrapped error is recognised", fmt.Errorf("conn 7: %w", ErrTooManyHeaders), 431},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StatusForError(c.err); got != c.want {
				t.Errorf("StatusForError(%v) = %d, want %d", c.err, got, c.want)
			}
		})
	}
}

func TestRequestErrorsAreMalformed(t *testing.T) {
	for _, err := range []error{ErrBadRequestLine, ErrTooManyHeaders, ErrBadHost, ErrBadTransferEncoding, ErrUnsupportedTE} {
		t.Run(err.Error()+" is malformed", func(t *testing.T) {
			if !IsMalformed(err) {
				t.Errorf("IsMalformed(%v) = false", err)
			}
		})
	}
}

func TestRequestHeadDoesNotAllocate(t *testing.T) {
	wrk, browser := []byte(benchWrkRequest), []byte(benchBrowserRequest)
	unsupported := []byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
	h := head.Request{Headers: make([]head.Field, 0, DefaultMaxHeaders)}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ParseRequestHead does not allocate for a load generator request", func(t *testing.T) {
			if _, err := ParseRequestHead(wrk, Limits{}, &h); err != nil {
				t.Fatal(err)
			}
		}},
		{"ParseRequestHead does not allocate for a browser request", func(t *testing.T) {
			if _, err := ParseRequestHead(browser, Limits{}, &h); err != nil {
				t.Fatal(err)
			}
		}},
		{"ParseRequestHead does not allocate on incomplete input", func(t *testing.T) {
			if _, err := ParseRequestHead(browser[:200], Limits{}, &h); err != ErrIncomplete {
				t.Fatal(err)
			}
		}},
		{"ParseRequestHead does not allocate on malformed input", func(t *testing.T) {
			if _, err := ParseRequestHead(unsupported, Limits{}, &h); err != ErrUnsupportedTE {
				t.Fatal(err)
			}
		}},
		{"Get and StatusForError do not allocate", func(t *testing.T) {
			if _, err := ParseRequestHead(browser, Limits{}, &h); err != nil {
				t.Fatal(err)
			}
			if h.Get("accept-language") == nil || StatusForError(ErrTooManyHeaders) != 431 {
				t.Fatal("unexpected result")
			}
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

// benchWrkRequest is what a load generator such as hey or wrk sends.
const benchWrkRequest = "GET / HTTP/1.1\r\n" +
	"Host: 127.0.0.1:8080\r\n" +
	"User-Agent: hey/0.0.1\r\n" +
	"Accept: */*\r\n" +
	"\r\n"

// benchBrowserRequest is what a browser sends for a script, with a dozen
// header fields.
const benchBrowserRequest = "GET /static/app.js?v=3 HTTP/1.1\r\n" +
	"Host: example.com\r\n" +
	"Connection: keep-alive\r\n" +
	"sec-ch-ua: \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"\r\n" +
	"sec-ch-ua-mobile: ?0\r\n" +
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n" +
	"sec-ch-ua-platform: \"Linux\"\r\n" +
	"Accept: */*\r\n" +
	"Sec-Fetch-Site: same-origin\r\n" +
	"Sec-Fetch-Mode: no-cors\r\n" +
	"Sec-Fetch-Dest: script\r\n" +
	"Referer: https://example.com/\r\n" +
	"Accept-Encoding: gzip, deflate, br, zstd\r\n" +
	"Accept-Language: en-US,en;q=0.9\r\n" +
	"Cookie: session=3f2a9c; theme=dark\r\n" +
	"\r\n"

func BenchmarkParseRequestHead(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"wrk", benchWrkRequest},
		{"browser", benchBrowserRequest},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := []byte(bc.in)
			h := head.Request{Headers: make([]head.Field, 0, 16)}
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if _, err := ParseRequestHead(buf, Limits{}, &h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
