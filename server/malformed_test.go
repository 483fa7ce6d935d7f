package server

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// smuggled is sent after every malformed request, in the same write. A
// server that misreads where the malformed request ends, or goes on reading
// after refusing it, would serve it.
const smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

// malformedCase is one request sent to a real server, followed by smuggled.
type malformedCase struct {
	name string
	raw  string
	// statuses are the responses expected in order; the last one must say
	// Connection: close, and the server must then close the connection
	// without sending anything more. Most cases expect one 4xx or 5xx.
	statuses []int
	// served lists what the handler must see, in order, as
	// "METHOD target body"; nil means no request reaches the handler.
	served []string
}

// refused is the usual expectation: one error response, no handler call.
func refused(name, raw string, status int) malformedCase {
	return malformedCase{name: name, raw: raw, statuses: []int{status}}
}

// Heads used by many cases.
const (
	post   = "POST / HTTP/1.1\r\nHost: x\r\n"
	get    = "GET / HTTP/1.1\r\nHost: x\r\n"
	teHead = post + "Transfer-Encoding: chunked\r\n\r\n"
)

// malformedConfig are the limits the table is written against.
// MaxBodyBytes leaves room for the trailer and extension cases: the server
// also bounds a chunked body's raw bytes by 2*MaxBodyBytes+MaxHeaderBytes.
var malformedConfig = Config{MaxHeaderBytes: 4096, MaxBodyBytes: 4000}

// malformedTable groups the cases by what they get wrong. Status choices:
// 400 for any malformed or ambiguous message (RFC 9112 sections 2.2, 3,
// 5, 6 and 7: a server MUST answer 400 to whitespace before a colon, an
// invalid or missing Host, an invalid Content-Length, or a Transfer-Encoding
// whose final coding is not chunked, and MAY answer 400 to CL with TE, which
// this server does); 501 for a chunked body under another transfer coding
// (RFC 9112 section 6.1); 505 for a well-formed version whose major is not
// 1 (RFC 9110 section 15.6.6); 414 for a request-target over the head
// limit and 501 for a method over it (RFC 9112 section 3); 431 for a head with too many or too large
// fields (RFC 6585 section 5); 413 for a body over MaxBodyBytes (RFC 9110
// section 15.5.14). Every error closes the connection: after a framing
// error nothing that follows can be trusted to start a request.
var malformedTable = []struct {
	category string
	cases    []malformedCase
}{
	{"Content-Length and Transfer-Encoding", []malformedCase{
		refused("Content-Length before Transfer-Encoding", post+"Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG", 400),
		refused("Transfer-Encoding before Content-Length", post+"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n", 400),
		refused("Content-Length 0 with Transfer-Encoding", post+"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
		refused("differing Content-Length fields", post+"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
		refused("the same length spelled differently", post+"Content-Length: 5\r\nContent-Length: 05\r\n\r\nhello", 400),
		refused("a Content-Length list of equal values", post+"Content-Length: 5, 5\r\n\r\nhello", 400),
		refused("a Content-Length list of differing values", post+"Content-Length: 5, 6\r\n\r\nhello!", 400),
		refused("an empty Content-Length", post+"Content-Length:\r\n\r\n", 400),
		refused("a negative Content-Length", post+"Content-Length: -1\r\n\r\n", 400),
		refused("a Content-Length with a plus sign", post+"Content-Length: +5\r\n\r\nhello", 400),
		refused("a hexadecimal Content-Length", post+"Content-Length: 0x5\r\n\r\nhello", 400),
		refused("a Content-Length with an inner space", post+"Content-Length: 1 5\r\n\r\nhello", 400),
		refused("a Content-Length with trailing junk", post+"Content-Length: 5x\r\n\r\nhello", 400),
		refused("an overflowing Content-Length", post+"Content-Length: 9223372036854775808\r\n\r\n", 400),
		refused("whitespace before the colon of Content-Length", post+"Content-Length : 5\r\n\r\nhello", 400),
		refused("a tab before the colon of Content-Length", post+"Content-Length\t: 5\r\n\r\nhello", 400),
		refused("Content-Length hidden in obs-fold", post+"X: a\r\n Content-Length: 5\r\n\r\nhello", 400),
		refused("differing Content-Length fields in HTTP/1.0", "POST / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
		refused("a Content-Length over MaxBodyBytes", post+"Content-Length: 5000\r\n\r\n", 413),
		refused("a Content-Length over MaxBodyBytes with Expect: 100-continue", post+"Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n", 413),
	}},
	{"Transfer-Encoding values", []malformedCase{
		refused("a final coding other than chunked", post+"Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n", 400),
		refused("chunked before another coding", post+"Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400),
		refused("another coding before chunked", post+"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
		refused("another coding in an earlier field", post+"Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
		refused("identity", post+"Transfer-Encoding: identity\r\n\r\n0\r\n\r\n", 400),
		refused("chunked twice in one field", post+"Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400),
		refused("chunked in two fields", post+"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
		refused("a misspelled chunked", post+"Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400),
		refused("a quoted chunked", post+"Transfer-Encoding: \"chunked\"\r\n\r\n0\r\n\r\n", 400),
		refused("chunked with a parameter", post+"Transfer-Encoding: chunked;q=1\r\n\r\n0\r\n\r\n", 400),
		refused("an empty Transfer-Encoding", post+"Transfer-Encoding:\r\n\r\n0\r\n\r\n", 400),
		refused("an empty element before chunked", post+"Transfer-Encoding: , chunked\r\n\r\n0\r\n\r\n", 400),
		refused("an empty element after chunked", post+"Transfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", 400),
		refused("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400),
		refused("whitespace before the colon of Transfer-Encoding", post+"Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400),
		refused("Transfer-Encoding folded onto a second line", post+"Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n", 400),
		refused("a vertical tab after chunked", post+"Transfer-Encoding: chunked\x0b\r\n\r\n0\r\n\r\n", 400),
		refused("a NUL inside chunked", post+"Transfer-Encoding: chun\x00ked\r\n\r\n0\r\n\r\n", 400),
	}},
	{"chunked framing", []malformedCase{
		refused("a chunk size that is not hex", teHead+"zz\r\n", 400),
		refused("an empty chunk size", teHead+"\r\nhello\r\n0\r\n\r\n", 400),
		refused("a negative chunk size", teHead+"-1\r\nA\r\n0\r\n\r\n", 400),
		refused("a chunk size with 0x", teHead+"0x5\r\nhello\r\n0\r\n\r\n", 400),
		refused("a chunk size with a leading space", teHead+" 5\r\nhello\r\n0\r\n\r\n", 400),
		refused("whitespace after the chunk size without an extension", teHead+"5 \r\nhello\r\n0\r\n\r\n", 400),
		refused("seventeen hex digits", teHead+"00000000000000005\r\nhello\r\n0\r\n\r\n", 400),
		refused("a chunk size that overflows 64 bits", teHead+"10000000000000005\r\nhello\r\n0\r\n\r\n", 400),
		refused("the largest 64-bit chunk size", teHead+"ffffffffffffffff\r\nhello\r\n0\r\n\r\n", 400),
		refused("a bare LF after the chunk size", teHead+"5\nhello\r\n0\r\n\r\n", 400),
		refused("a bare CR after the chunk size", teHead+"5\rhello\r\n0\r\n\r\n", 400),
		refused("data longer than its chunk size", teHead+"3\r\nhello\r\n0\r\n\r\n", 400),
		refused("data shorter than its chunk size", teHead+"7\r\nhello\r\n0\r\n\r\n", 400),
		refused("a bare LF after chunk data", teHead+"5\r\nhello\n0\r\n\r\n", 400),
		refused("no line ending after chunk data", teHead+"5\r\nhello0\r\n\r\n", 400),
		refused("a NUL in a chunk extension", teHead+"5;a\x00b\r\nhello\r\n0\r\n\r\n", 400),
		refused("a bare LF in a chunk extension", teHead+"5;a\nhello\r\n0\r\n\r\n", 400),
		refused("a bare CR in a chunk extension", teHead+"5;a\rb\r\nhello\r\n0\r\n\r\n", 400),
		refused("a chunk extension over 4 KiB", teHead+"5;"+strings.Repeat("x", 4200)+"\r\nhello\r\n0\r\n\r\n", 400),
		// RFC 9112 section 7.1.1: chunk-ext = *( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] ).
		refused("an empty chunk extension name", teHead+"5;\r\nhello\r\n0\r\n\r\n", 400),
		refused("a chunk extension name that is not a token", teHead+"5;bad[=x\r\nhello\r\n0\r\n\r\n", 400),
		refused("an empty chunk extension name after BWS", teHead+"5 ; \r\nhello\r\n0\r\n\r\n", 400),
		refused("a chunk extension value that is not a token", teHead+"5;a=b@c\r\nhello\r\n0\r\n\r\n", 400),
		refused("an empty chunk extension value", teHead+"5;a=\r\nhello\r\n0\r\n\r\n", 400),
		refused("an unclosed quote in a chunk extension", teHead+"5;a=\"x\r\nhello\r\n0\r\n\r\n", 400),
		refused("text after a chunk extension's closing quote", teHead+"5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", 400),
		refused("an empty chunk extension on the last chunk", teHead+"5\r\nhello\r\n0;\r\n\r\n", 400),
		refused("an obs-folded trailer", teHead+"0\r\nA: b\r\n c\r\n\r\n", 400),
		refused("a trailer line without a colon", teHead+"0\r\nNoColon\r\n\r\n", 400),
		refused("a trailer with an empty name", teHead+"0\r\n: v\r\n\r\n", 400),
		refused("whitespace before a trailer's colon", teHead+"0\r\nA : b\r\n\r\n", 400),
		refused("a bare LF in the trailer section", teHead+"0\r\nA: b\n\r\n", 400),
		refused("a NUL in a trailer value", teHead+"0\r\nA: \x00\r\n\r\n", 400),
		refused("a trailer section over 8 KiB", teHead+"0\r\nX: "+strings.Repeat("y", 9000)+"\r\n\r\n", 400),
		refused("a last chunk ending in CR CR", teHead+"0\r\n\r\r\n", 400),
		refused("a last chunk ending in a bare LF", teHead+"0\r\n\n", 400),
		refused("a chunked body over MaxBodyBytes", teHead+"1388\r\n"+strings.Repeat("a", 5000)+"\r\n0\r\n\r\n", 413),
	}},
	{"header fields", []malformedCase{
		refused("whitespace before a colon", get+"Accept : */*\r\n\r\n", 400),
		refused("a tab before a colon", get+"Accept\t: */*\r\n\r\n", 400),
		refused("obs-fold", get+"X: a\r\n b\r\n\r\n", 400),
		refused("obs-fold with a tab", get+"X: a\r\n\tb\r\n\r\n", 400),
		refused("a space before the first field", "GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400),
		refused("a line without a colon", get+"NoColon\r\n\r\n", 400),
		refused("an empty field name", get+": v\r\n\r\n", 400),
		refused("a field name that is not a token", get+"X(y): 1\r\n\r\n", 400),
		refused("a field name with UTF-8", get+"Caf\xc3\xa9: 1\r\n\r\n", 400),
		refused("a bare CR in a value", get+"X: a\rTransfer-Encoding: chunked\r\n\r\n", 400),
		refused("a bare CR in a name", get+"X\r: a\r\n\r\n", 400),
		refused("a bare LF ending a field line", get+"X: a\nY: b\r\n\r\n", 400),
		refused("a bare LF ending the head", get+"X: a\r\n\n", 400),
		refused("a bare CR ending the head", get+"X: a\r\n\rX", 400),
		refused("a NUL in a value", get+"X: a\x00b\r\n\r\n", 400),
		refused("a NUL in a name", get+"X\x00: a\r\n\r\n", 400),
		refused("SOH in a value", get+"X: a\x01b\r\n\r\n", 400),
		refused("ESC in a value", get+"X: \x1b[31mred\r\n\r\n", 400),
		refused("a vertical tab in a value", get+"X: a\x0bb\r\n\r\n", 400),
		refused("a form feed in a value", get+"X: a\x0cb\r\n\r\n", 400),
		refused("DEL in a value", get+"X: a\x7fb\r\n\r\n", 400),
		refused("HTTP/1.1 without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
		refused("absolute-form still needs Host", "GET http://x/ HTTP/1.1\r\n\r\n", 400),
		refused("two Host fields", get+"Host: y\r\n\r\n", 400),
		refused("two identical Host fields", get+"host: x\r\n\r\n", 400),
		refused("a Host with a space", "GET / HTTP/1.1\r\nHost: x y\r\n\r\n", 400),
		refused("a Host with a slash", "GET / HTTP/1.1\r\nHost: x/y\r\n\r\n", 400),
		refused("a Host with userinfo", "GET / HTTP/1.1\r\nHost: u@x\r\n\r\n", 400),
		refused("a Host with a non-numeric port", "GET / HTTP/1.1\r\nHost: x:8o\r\n\r\n", 400),
		refused("a Host with an IPv6 zone", "GET / HTTP/1.1\r\nHost: [fe80::1%25eth0]\r\n\r\n", 400),
	}},
	{"request line", []malformedCase{
		refused("a bare LF ending the request line", "GET / HTTP/1.1\nHost: x\r\n\r\n", 400),
		refused("a bare CR in the request line", "GET /\r HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a bare LF before the request line", "\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a bare CR before the request line", "\rGET / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("two spaces after the method", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("two spaces before the version", "GET /  HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a tab as separator", "GET\t/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("an empty method", " / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a method that is not a token", "GE(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a NUL in the method", "G\x00T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a space in the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a control byte in the target", "GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a NUL in the target", "GET /a\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("DEL in the target", "GET /a\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a non-ASCII byte in the target", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a fragment in the target", "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a malformed percent-encoding", "GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a relative target", "GET index.html HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("the asterisk-form with GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("the authority-form with GET", "GET x:80 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("CONNECT with a path", "CONNECT /rpc HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("CONNECT without a port", "CONNECT x HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("an absolute-form with another scheme", "GET ftp://x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("an absolute-form with userinfo", "GET http://u@x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("an absolute-form with an empty host", "GET http:///a HTTP/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a TLS handshake", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),
	}},
	{"versions", []malformedCase{
		refused("HTTP/0.9 (no version)", "GET /\r\n\r\n", 400),
		refused("no version after a space", "GET / \r\nHost: x\r\n\r\n", 400),
		refused("HTTP/0.9 spelled out", "GET / HTTP/0.9\r\n\r\n", 505),
		refused("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
		refused("HTTP/3.0", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505),
		refused("the HTTP/2 connection preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
		refused("a two-digit minor version", "GET / HTTP/1.10\r\nHost: x\r\n\r\n", 400),
		refused("a two-digit major version", "GET / HTTP/11.1\r\nHost: x\r\n\r\n", 400),
		refused("a version without a minor", "GET / HTTP/1\r\nHost: x\r\n\r\n", 400),
		refused("a lower-case version", "GET / http/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a non-digit minor version", "GET / HTTP/1.x\r\nHost: x\r\n\r\n", 400),
		refused("HTTPS as the protocol name", "GET / HTTPS/1.1\r\nHost: x\r\n\r\n", 400),
		refused("a space after the version", "GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400),
	}},
	{"sizes", []malformedCase{
		refused("a request-target over MaxHeaderBytes", "GET /"+strings.Repeat("a", 5000)+" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
		refused("a field over MaxHeaderBytes", get+"X-Big: "+strings.Repeat("a", 5000)+"\r\n\r\n", 431),
		refused("fields adding up over MaxHeaderBytes", get+strings.Repeat("X-Many: "+strings.Repeat("a", 50)+"\r\n", 80)+"\r\n", 431),
		refused("more than 100 fields", get+strings.Repeat("X: y\r\n", 100)+"\r\n", 431),
		refused("a method over MaxHeaderBytes", strings.Repeat("G", 5000)+" / HTTP/1.1\r\nHost: x\r\n\r\n", 501),
	}},
	{"valid requests with another request inside", []malformedCase{
		{name: "a request in a Content-Length body stays body",
			raw:      post + fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n\r\n", len(smuggled)) + smuggled,
			statuses: []int{200}, served: []string{"POST / " + smuggled}},
		{name: "a request in chunk data stays data",
			raw:      teHead[:len(teHead)-2] + fmt.Sprintf("Connection: close\r\n\r\n%x\r\n0\r\n\r\n", 5+len(smuggled)) + smuggled + "\r\n0\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / 0\r\n\r\n" + smuggled}},
		{name: "a request in a chunk extension is skipped",
			raw:      teHead[:len(teHead)-2] + "Connection: close\r\n\r\n5;x=\"GET /smuggled HTTP/1.1\"\r\nhello\r\n0\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "chunk extensions with BWS around ; and = are served",
			raw:      teHead[:len(teHead)-2] + "Connection: close\r\n\r\n5 ; a = 1 ;\tb\r\nhello\r\n0\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "a quoted chunk extension value with escapes is served",
			raw:      teHead[:len(teHead)-2] + "Connection: close\r\n\r\n5;a=\"q\\\"u;o\\\\te\"\r\nhello\r\n0;b=\"\"\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "framing fields in the trailer section are ignored",
			raw:      teHead[:len(teHead)-2] + "Connection: close\r\n\r\n5\r\nhello\r\n0\r\nContent-Length: 34\r\nTransfer-Encoding: chunked\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "a Content-Length shorter than the body leaves the rest as the next request",
			raw:      post + "Content-Length: 2\r\n\r\nhello\r\n",
			statuses: []int{200, 400}, served: []string{"POST / he"}},
		{name: "a Content-Length longer than the body takes the next request's bytes",
			raw:      post + "Content-Length: 10\r\n\r\nhello",
			statuses: []int{200, 400}, served: []string{"POST / helloGET /"}},
		{name: "Transfer_Encoding with an underscore is an ordinary field",
			raw:      post + "Transfer_Encoding: chunked\r\n\r\n0\r\n\r\n",
			statuses: []int{200, 400}, served: []string{"POST / "}},
		{name: "Content_Length with an underscore is an ordinary field",
			raw:      post + "Content_Length: 7\r\n\r\nhello\r\n",
			statuses: []int{200, 400}, served: []string{"POST / "}},
		{name: "HTTP/1.0 without keep-alive closes after its body",
			raw:      "POST / HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "a GET with a body and Connection: close",
			raw:      get + "Content-Length: 5\r\nConnection: close\r\n\r\nhello",
			statuses: []int{200}, served: []string{"GET / hello"}},
		{name: "empty lines before the request line are skipped",
			raw:      "\r\n\r\n" + get + "Connection: close\r\n\r\n",
			statuses: []int{200}, served: []string{"GET / "}},
		{name: "repeated identical Content-Length fields are one length",
			raw:      post + "Content-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "chunked in mixed case is chunked",
			raw:      post + "Transfer-Encoding: ChUnKeD\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
			statuses: []int{200}, served: []string{"POST / hello"}},
		{name: "a malformed second request is refused after the first is served",
			raw:      get + "\r\n" + "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			statuses: []int{200, 400}, served: []string{"GET / "}},
	}},
}

// requestLog is a handler that notes every request it serves.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (r *requestLog) ServeGust(c *Ctx) {
	r.mu.Lock()
	r.seen = append(r.seen, fmt.Sprintf("%s %s %s", c.Method(), c.Target(), c.Body()))
	r.mu.Unlock()
	c.WriteString("ok")
}

// take returns what the handler saw since the last call and forgets it.
func (r *requestLog) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := r.seen
	r.seen = nil
	return seen
}

func TestMalformedRequestsAreRefusedAndNothingIsSmuggled(t *testing.T) {
	n := 0
	for _, group := range malformedTable {
		n += len(group.cases)
	}
	if n < 100 {
		t.Errorf("the table has %d cases; the issue asks for at least 100", n)
	}
	for _, mode := range []Mode{Pooled, Inline} {
		rec := new(requestLog)
		cfg := malformedConfig
		cfg.Mode = mode
		s := start(t, rec, cfg)
		for _, group := range malformedTable {
			for _, tc := range group.cases {
				t.Run(mode.String()+"/"+group.category+"/"+tc.name, func(t *testing.T) {
					rec.take()
					checkMalformed(t, s, tc)
					if seen := rec.take(); !slices.Equal(seen, tc.served) {
						t.Errorf("the handler saw %q, want %q", seen, tc.served)
					}
				})
			}
		}
	}
}

// checkMalformed sends tc.raw and smuggled in one write on a new connection,
// reads the responses tc expects, and checks that the server then closes the
// connection without another byte.
func checkMalformed(t *testing.T, s *Server, tc malformedCase) {
	t.Helper()
	c, r := rawConn(t, s)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, tc.raw+smuggled); err != nil {
		t.Fatal(err)
	}
	for i, want := range tc.statuses {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("response %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
		if last := i == len(tc.statuses)-1; last && !resp.Close {
			t.Errorf("response %d: no Connection: close", i+1)
		}
	}
	rest, err := readToEOF(r)
	if len(rest) > 0 {
		t.Errorf("the server sent more after the last response: %q", rest)
	}
	if err != nil {
		t.Errorf("the connection was not closed: %v", err)
	}
}

// readToEOF reads r until the peer closes the connection; a reset counts as
// closed. It returns what it read.
func readToEOF(r *bufio.Reader) ([]byte, error) {
	rest, err := io.ReadAll(r)
	if err != nil && strings.Contains(err.Error(), "reset") {
		err = nil
	}
	return rest, err
}
