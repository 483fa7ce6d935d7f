package http1

import (
	"bytes"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gust-http/gust/internal/ascii"
)

// direction says which side refuses an input the other accepts.
type direction uint8

const (
	gustRefuses    direction = iota // this package refuses what net/http accepts
	netHTTPRefuses                  // net/http refuses what this package accepts
)

// divergence is one intentional difference between this package and
// net/http's http.ReadRequest. Each is mirrored, by name, in
// docs/CONFORMANCE.md.
type divergence struct {
	name string
	dir  direction
	// rfc is the section that justifies this package's behaviour.
	rfc string
	// applies reports whether the input shows this difference. For
	// gustRefuses it looks at the input and net/http's reading of it, which
	// exists; for netHTTPRefuses at net/http's error and the input (as this
	// package, which accepted it, read it). It never asks this package's
	// parser why it refused: the predicate must explain the refusal on its
	// own. For a bridged divergence it only sees how many bytes judge
	// skipped.
	applies func(j *judgement) bool
	// errs are the errors this package may refuse such an input with
	// (gustRefuses only): a refusal for another reason is not excused.
	errs []error
	// bridged divergences are not excused after the fact: judge removes
	// the difference from the input before giving it to net/http.
	bridged bool
	// example is an input on which the two sides disagree for this reason
	// alone.
	example string
}

// divergences is the allow-list of FuzzRequestAgainstNetHTTP: every
// disagreement between the two parsers must be one of these.
var divergences = []divergence{
	// net/http refuses what this package accepts.
	{
		// RFC 9112 section 2.2: a server SHOULD ignore at least one empty
		// line (CRLF) received before the request line. http.ReadRequest
		// refuses it (net/http's server skips one only after a POST).
		name: "emptyLinesBeforeRequestLine", dir: netHTTPRefuses, rfc: "RFC 9112 section 2.2", bridged: true,
		applies: func(j *judgement) bool { return j.skipped > 0 },
		example: "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9110 section 6.6.2: the Trailer field only announces trailer
		// fields. net/http refuses one naming Content-Length,
		// Transfer-Encoding or Trailer; this package ignores the Trailer
		// field and never merges trailer fields into the header section
		// (RFC 9110 section 6.5.1 lets a recipient discard them), so such an
		// announcement cannot change framing.
		name: "trailerAnnouncesFramingField", dir: netHTTPRefuses, rfc: "RFC 9110 sections 6.5.1 and 6.6.2",
		applies: func(j *judgement) bool {
			return strings.Contains(j.net.err.Error(), "bad trailer key") && j.gust.head.Get("Trailer") != nil
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	},
	{
		// RFC 9112 section 7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name
		// ... ), so whitespace may come between the size and ";". net/http
		// refuses it.
		name: "chunkWhitespaceBeforeExtension", dir: netHTTPRefuses, rfc: "RFC 9112 section 7.1.1",
		applies: func(j *judgement) bool {
			body := j.in[min(j.gust.head.HeadLen-j.skipped, len(j.in)):]
			return j.net.err.Error() == "invalid byte in chunk length" &&
				(bytes.Contains(body, []byte(" ;")) || bytes.Contains(body, []byte("\t;")))
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1 ;x\r\nA\r\n0\r\n\r\n",
	},
	{
		// net/http limits a chunk line to 4095 bytes; this package allows
		// 16 hex digits and 4 KiB of whitespace and extensions after them.
		// RFC 9112 section 7.1.1 lets a server limit extensions and
		// sets no number.
		name: "chunkLineLongerThanNetHTTPAllows", dir: netHTTPRefuses, rfc: "RFC 9112 section 7.1.1",
		applies: func(j *judgement) bool { return j.net.err.Error() == "header line too long" },
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;" +
			strings.Repeat("x", 4094) + "\r\nA\r\n0\r\n\r\n",
	},
	{
		// net/http refuses a chunked body whose framing (chunk lines and
		// extensions) outweighs its data by more than 16 KiB. This package
		// bounds each chunk line and, in the server, the raw body bytes
		// against MaxBodyBytes instead.
		name: "chunkOverheadOverNetHTTPRatio", dir: netHTTPRefuses, rfc: "RFC 9112 section 7.1.1",
		applies: func(j *judgement) bool {
			return j.net.err.Error() == "chunked encoding contains too much non-data"
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strings.Repeat("1;"+strings.Repeat("x", 1000)+"\r\nA\r\n", 20) + "0\r\n\r\n",
	},
	{
		// net/http needs the whole trailer section inside its 4 KiB read
		// buffer; this package allows 8 KiB of trailer field lines. RFC
		// 9110 section 5.4 leaves the limit to the server.
		name: "trailerLongerThanNetHTTPAllows", dir: netHTTPRefuses, rfc: "RFC 9110 section 5.4",
		applies: func(j *judgement) bool {
			return j.net.err.Error() == "http: suspiciously long trailer after chunked body"
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " +
			strings.Repeat("y", 5000) + "\r\n\r\n",
	},

	// This package refuses what net/http accepts.
	{
		// RFC 9112 section 2.2 lets a recipient accept a bare LF as a line
		// ending; this package refuses it in the head and in chunked
		// framing, because a front end that does not would frame the
		// message differently (RFC 9112 section 11.2).
		name: "bareLF", dir: gustRefuses, rfc: "RFC 9112 sections 2.2 and 11.2",
		errs: []error{ErrBadRequestLine, ErrBadHeader, ErrBadChunk},
		applies: func(j *judgement) bool {
			_, trailer := netChunks(j)
			return hasBareLF(netHead(j)) || hasBareLF(trailer)
		},
		example: "GET / HTTP/1.1\nHost: a\n\n",
	},
	{
		// RFC 9112 section 5.2: a server that receives obs-fold in a
		// request MUST either reject it with 400 or replace it with SP;
		// this package rejects it. net/http joins the lines.
		name: "obsFold", dir: gustRefuses, rfc: "RFC 9112 section 5.2",
		errs: []error{ErrBadHeader, ErrBadChunk},
		applies: func(j *judgement) bool {
			return slices.ContainsFunc(netFieldLines(j), func(l string) bool { return l[0] == ' ' || l[0] == '\t' })
		},
		example: "GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n c\r\n\r\n",
	},
	{
		// RFC 9112 section 5.1: a server MUST reject with 400 a request
		// with whitespace between a field name and the colon; RFC 9110
		// section 5.1 makes the name a token. net/http accepts a name with
		// spaces and does not canonicalise it, so "Content-Length :" is no
		// Content-Length to it, the classic smuggling vector.
		name: "spaceInFieldName", dir: gustRefuses, rfc: "RFC 9112 section 5.1",
		errs: []error{ErrBadHeader, ErrBadChunk},
		applies: func(j *judgement) bool {
			return slices.ContainsFunc(netFieldLines(j), func(l string) bool {
				name, _, _ := strings.Cut(l, ":")
				return l[0] != ' ' && l[0] != '\t' && strings.ContainsRune(name, ' ')
			})
		},
		example: "GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 1\r\n\r\nA",
	},
	{
		// RFC 9110 section 15.6.6 and RFC 9112 section 2.3: a major version
		// other than 1 gets 505. http.ReadRequest accepts any HTTP/d.d and
		// leaves the check to its server.
		name: "majorVersionNot1", dir: gustRefuses, rfc: "RFC 9110 section 15.6.6",
		errs:    []error{ErrBadVersion},
		applies: func(j *judgement) bool { return j.net.req.ProtoMajor != 1 },
		example: "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9112 section 3.2: a server MUST respond with 400 to an
		// HTTP/1.1 request without a Host field. http.ReadRequest leaves
		// the check to its server.
		name: "missingHost", dir: gustRefuses, rfc: "RFC 9112 section 3.2",
		errs: []error{ErrBadHost},
		applies: func(j *judgement) bool {
			return j.net.req.ProtoMajor == 1 && j.net.req.ProtoMinor >= 1 && len(netFieldValues(j, "host")) == 0
		},
		example: "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n",
	},
	{
		// RFC 9112 section 3.2: a server MUST respond with 400 to a request
		// whose Host field has an invalid value; RFC 9110 section 7.2 makes
		// it uri-host [":" port]. This package also refuses pct-encoded
		// hosts, IPv6 zones and IPvFuture (see validAuthority).
		// http.ReadRequest does not look at the value.
		name: "invalidHost", dir: gustRefuses, rfc: "RFC 9112 section 3.2, RFC 9110 section 7.2",
		errs: []error{ErrBadHost},
		applies: func(j *judgement) bool {
			return slices.ContainsFunc(netFieldValues(j, "host"), func(v string) bool {
				return v != "" && !isHostPort(v, false)
			})
		},
		example: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
	},
	{
		// RFC 9112 section 3.2 and RFC 3986: a request-target is made of
		// VCHARs and has no fragment. net/url takes a '#' and non-ASCII
		// bytes into the path.
		name: "targetByteOutsideGrammar", dir: gustRefuses, rfc: "RFC 9112 section 3.2, RFC 3986 section 3",
		errs: []error{ErrBadRequestLine},
		applies: func(j *judgement) bool {
			return strings.ContainsFunc(j.net.req.RequestURI, func(r rune) bool { return r == '#' || r >= 0x80 })
		},
		example: "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9112 section 3.2.4: the asterisk-form is only for OPTIONS.
		name: "asteriskFormNotOptions", dir: gustRefuses, rfc: "RFC 9112 section 3.2.4",
		errs:    []error{ErrBadRequestLine},
		applies: func(j *judgement) bool { return j.net.req.RequestURI == "*" && j.net.req.Method != "OPTIONS" },
		example: "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9112 sections 3.2.2 and 3.2.3: besides "*", a target that is
		// not an absolute path is an absolute-URI, and an origin server
		// serves http and https URIs (RFC 9110 section 4.2), which MUST
		// have a non-empty host (section 4.2.1). net/url accepts any
		// scheme, opaque URIs (so "example.com:80" with GET) and empty
		// hosts.
		name: "absoluteFormNotHTTP", dir: gustRefuses, rfc: "RFC 9112 section 3.2.2, RFC 9110 section 4.2",
		errs: []error{ErrBadRequestLine},
		applies: func(j *judgement) bool {
			req := j.net.req
			t := req.RequestURI
			if req.Method == "CONNECT" || strings.HasPrefix(t, "/") || t == "*" {
				return false
			}
			scheme, rest, ok := strings.Cut(t, "://")
			if !ok || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
				return true
			}
			authority := rest[:strings.IndexAny(rest+"/", "/?")]
			if at := strings.LastIndexByte(authority, '@'); at >= 0 {
				authority = authority[at+1:] // userinfo is the next divergence
			}
			return !isHostPort(authority, false)
		},
		example: "GET ftp://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9110 section 4.2.4: a recipient SHOULD treat userinfo in an
		// http(s) URI as an error.
		name: "userinfoInTarget", dir: gustRefuses, rfc: "RFC 9110 section 4.2.4",
		errs:    []error{ErrBadRequestLine},
		applies: func(j *judgement) bool { return j.net.req.URL.User != nil },
		example: "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9112 section 3.2.3 and RFC 9110 section 9.3.6: CONNECT's
		// target is the authority-form uri-host ":" port. net/http also
		// takes a path (for net/rpc) and an authority without a port.
		name: "connectTargetNotHostPort", dir: gustRefuses, rfc: "RFC 9112 section 3.2.3",
		errs: []error{ErrBadRequestLine},
		applies: func(j *judgement) bool {
			return j.net.req.Method == "CONNECT" && !isHostPort(j.net.req.RequestURI, true)
		},
		example: "CONNECT /rpc HTTP/1.1\r\nHost: a\r\n\r\n",
	},
	{
		// RFC 9112 section 6.1: a server MAY reject a request with both
		// Transfer-Encoding and Content-Length, and MUST close the
		// connection after it if not; net/http lets Transfer-Encoding win.
		// Refusing leaves no room for a front end that chose otherwise.
		name: "contentLengthWithTransferEncoding", dir: gustRefuses, rfc: "RFC 9112 sections 6.1 and 6.3",
		errs: []error{ErrBadTransferEncoding},
		applies: func(j *judgement) bool {
			return len(netFieldValues(j, "transfer-encoding")) > 0 && len(netFieldValues(j, "content-length")) > 0
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	},
	{
		// RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 message
		// means the framing is faulty. net/http ignores the field and
		// frames by Content-Length.
		name: "transferEncodingInHTTP10", dir: gustRefuses, rfc: "RFC 9112 section 6.1",
		errs: []error{ErrBadTransferEncoding},
		applies: func(j *judgement) bool {
			return j.net.req.ProtoMinor == 0 && len(netFieldValues(j, "transfer-encoding")) > 0
		},
		example: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	},
	{
		// RFC 9110 section 5.4 lets a server refuse a header section larger
		// than it wishes to process (431, RFC 6585); this package's default
		// is DefaultMaxHeaders fields. http.ReadRequest sets no limit.
		name: "tooManyFields", dir: gustRefuses, rfc: "RFC 9110 section 5.4",
		errs:    []error{ErrTooManyHeaders},
		applies: func(j *judgement) bool { return len(netFieldLines(j)) > DefaultMaxHeaders },
		example: "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X: y\r\n", DefaultMaxHeaders) + "\r\n",
	},
	{
		// RFC 9110 section 5.4: likewise for the size of the head, by
		// default DefaultMaxHead bytes.
		name: "headTooLarge", dir: gustRefuses, rfc: "RFC 9110 section 5.4",
		errs:    []error{ErrHeadTooLarge, ErrURITooLong, ErrMethodTooLong},
		applies: func(j *judgement) bool { return j.skipped+j.net.headEnd > DefaultMaxHead },
		example: "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("y", DefaultMaxHead) + "\r\n\r\n",
	},
	{
		// RFC 9112 section 7.1: chunk-size is 1*HEXDIG, and whitespace may
		// only come before a chunk extension. net/http trims whitespace at
		// the end of a chunk line.
		name: "chunkSizeTrailingWhitespace", dir: gustRefuses, rfc: "RFC 9112 section 7.1",
		errs: []error{ErrBadChunk},
		applies: func(j *judgement) bool {
			lines, _ := netChunks(j)
			return slices.ContainsFunc(lines, func(l string) bool {
				return !strings.Contains(l, ";") && strings.TrimRight(l, " \t") != l
			})
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1 \r\nA\r\n0\r\n\r\n",
	},
	{
		// RFC 9112 section 7.1.1: chunk-ext = *( BWS ";" BWS name [ BWS
		// "=" BWS value ] ), the name a token, the value a token or a
		// quoted-string. This package refuses anything else on a chunk line
		// (an empty name, a name that is not a token, a control byte, an
		// unclosed quote); net/http ignores everything after ";".
		name: "chunkExtensionOutsideGrammar", dir: gustRefuses, rfc: "RFC 9112 section 7.1.1",
		errs: []error{ErrBadChunk},
		applies: func(j *judgement) bool {
			lines, _ := netChunks(j)
			return slices.ContainsFunc(lines, func(l string) bool {
				i := strings.IndexAny(l, " \t;")
				return strings.Contains(l, ";") && !chunkExtGrammar.MatchString(obsTextAsParen(l[i:]))
			})
		},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;bad[=x\r\nA\r\n0\r\n\r\n",
	},
}

// chunkExtGrammar is RFC 9112 section 7.1.1's chunk-ext as a regular
// expression, written apart from the decoder's state machine so that each
// checks the other. Bytes of obs-text are first replaced by '(' (allowed in
// a quoted-string, not in a token), since the expression reads UTF-8.
var chunkExtGrammar = func() *regexp.Regexp {
	const token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+"
	const quoted = `"(?:[\t !#-\[\]-~]|\\[\t -~])*"`
	return regexp.MustCompile(`^(?:[ \t]*;[ \t]*` + token + `(?:[ \t]*=[ \t]*(?:` + token + `|` + quoted + `))?)*$`)
}()

func obsTextAsParen(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 0x80 {
			b[i] = '('
		}
	}
	return string(b)
}

// netHead returns the head net/http read, request line and empty line
// included.
func netHead(j *judgement) []byte { return j.in[:j.net.headEnd] }

// netFieldLines returns the field lines of net/http's head and of the
// trailer section of a chunked body, without line endings; an obs-fold
// continuation is a line of its own.
func netFieldLines(j *judgement) []string {
	lines := splitLines(netHead(j))[1:] // after the request line
	_, trailer := netChunks(j)
	return append(lines, splitLines(trailer)...)
}

// netFieldValues returns the values, trimmed of whitespace, of the header
// fields of net/http's head whose name is name (lower case).
func netFieldValues(j *judgement, name string) []string {
	var values []string
	for _, l := range splitLines(netHead(j))[1:] {
		n, v, ok := strings.Cut(l, ":")
		if ok && ascii.EqualLower(n, name) {
			values = append(values, strings.Trim(v, " \t"))
		}
	}
	return values
}

// splitLines splits b at LF, drops a CR before each LF, and leaves out the
// empty lines that end a head or trailer section.
func splitLines(b []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// netChunks walks the chunked body net/http accepted and returns its chunk
// lines, without CRLF, and its trailer section; both are nil when the body
// is not chunked.
func netChunks(j *judgement) (lines []string, trailer []byte) {
	if j.net.req == nil || !slices.Equal(j.net.req.TransferEncoding, []string{"chunked"}) {
		return nil, nil
	}
	b := j.in[j.net.headEnd:j.net.n]
	for {
		eol := bytes.IndexByte(b, '\n')
		if eol < 0 {
			return lines, nil
		}
		line := strings.TrimSuffix(string(b[:eol]), "\r")
		lines = append(lines, line)
		b = b[eol+1:]
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseUint(strings.TrimRight(size, " \t"), 16, 64)
		switch {
		case err != nil:
			return lines, nil
		case n == 0:
			return lines, b
		case uint64(len(b)) < n+2:
			return lines, nil
		}
		b = b[n+2:]
	}
}

// hasBareLF reports whether b has an LF not preceded by CR.
func hasBareLF(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

// isHostPort reports whether s is uri-host [":" port] (RFC 3986 section
// 3.2.2) as this package reads it: a non-empty reg-name of unreserved and
// sub-delims characters (no pct-encoding), or an IPv6 literal without zone;
// needPort asks for a non-empty port. It is written apart from
// validAuthority, on net/netip, so that the harness does not take the
// parser's word for it.
func isHostPort(s string, needPort bool) bool {
	var host, port string
	hasPort := false
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		a, err := netip.ParseAddr(s[1:end])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return false
		}
		rest := s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return false
			}
			port, hasPort = rest[1:], true
		}
	} else {
		host = s
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			host, port, hasPort = s[:i], s[i+1:], true
		}
		if host == "" || strings.ContainsFunc(host, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~!$&'()*+,;=", r))
		}) {
			return false
		}
	}
	if needPort && (!hasPort || port == "") {
		return false
	}
	return !strings.ContainsFunc(port, func(r rune) bool { return r < '0' || r > '9' })
}

func TestDivergencesFromNetHTTP(t *testing.T) {
	for _, d := range divergences {
		t.Run(d.name+" is a disagreement only it explains", func(t *testing.T) {
			if (d.dir == gustRefuses) != (len(d.errs) > 0) {
				t.Fatalf("errs %v: a divergence where this package refuses must name its errors, and only such a one", d.errs)
			}
			in := []byte(d.example)
			gustErr, netErr := readGust(in).err, readNetHTTP(in).err
			switch {
			case d.dir == gustRefuses && (gustErr == nil || netErr != nil):
				t.Fatalf("want this package to refuse and net/http to accept; got %v and %v", gustErr, netErr)
			case d.dir == netHTTPRefuses && (gustErr != nil || netErr == nil):
				t.Fatalf("want net/http to refuse and this package to accept; got %v and %v", netErr, gustErr)
			}
			j := judge(in)
			if j.problem != "" || !slices.Equal(j.excuses, []string{d.name}) {
				t.Fatalf("judged %q with excuses %q, want no problem and only %s", j.problem, j.excuses, d.name)
			}
		})
	}
}

func TestDivergencesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CONFORMANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range divergences {
		if !bytes.Contains(doc, []byte("`"+d.name+"`")) {
			t.Errorf("docs/CONFORMANCE.md does not list the divergence `%s` (%s)", d.name, d.rfc)
		}
	}
}

func TestIsHostPort(t *testing.T) {
	tests := []struct {
		in             string
		needPort, want bool
	}{
		{"example.com", false, true},
		{"example.com:80", false, true},
		{"example.com:", false, true},
		{"example.com:", true, false},
		{"example.com", true, false},
		{"[::1]:443", true, true},
		{"[::1]", false, true},
		{"[fe80::1%25eth0]", false, false},
		{"[127.0.0.1]", false, false},
		{":80", false, false},
		{"a b", false, false},
		{"ex%61mple.com", false, false},
		{"u@a", false, false},
		{"a:b:80", false, false},
		{"a:8x", false, false},
	}
	for _, tt := range tests {
		if got := isHostPort(tt.in, tt.needPort); got != tt.want {
			t.Errorf("isHostPort(%q, %v) = %v, want %v", tt.in, tt.needPort, got, tt.want)
		}
	}
}
