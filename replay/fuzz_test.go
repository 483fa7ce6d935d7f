package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load"
)

// checkEntry holds what every parser promises about a line it accepts.
func checkEntry(t *testing.T, e *entry) {
	t.Helper()
	if !http1.IsToken(e.method) {
		t.Fatalf("method %q is not a token", e.method)
	}
	if len(e.target) == 0 || e.target[0] != '/' && string(e.target) != "*" {
		t.Fatalf("target %q is neither a path nor *", e.target)
	}
	for _, c := range e.target {
		if c <= ' ' || c == 0x7f {
			t.Fatalf("target %q has a space or control byte", e.target)
		}
	}
}

func FuzzParseCLF(f *testing.F) {
	for _, s := range []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
		`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /a?b HTTP/1.1" 200 - "http://x/" "Mozilla \"q\" \x22"`,
		`::1 - - [29/Feb/2024:00:00:00 +0000] "GET http://h/x HTTP/1.1" 200 5 "-" "-" 0.01`,
		`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01" 400 0`,
		`[] "`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var p clfParser
		var e entry
		if err := p.parse([]byte(line), &e); err != nil {
			return
		}
		checkEntry(t, &e)
		first := plain(&e)
		e.reset()
		if err := p.parse([]byte(line), &e); err != nil || plain(&e) != first {
			t.Fatalf("a second parse differs: %v %+v vs %+v", err, plain(&e), first)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"time":"2026-01-02T03:04:05.25Z","method":"POST","url":"/users?x=1","headers":{"A":"b","C":["d","e"]},"body":"{\"a\":1}"}`,
		`{"path":"/caf\u00e9","time":1767323045.5,"body_base64":"AAEC"}`,
		`{"x":[{"y":null},true,false,-1e5],"path":"/"}`,
		`{"path":"/\ud83d\ude00\ud800"}`,
		`{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var p jsonParser
		var e entry
		err := p.parse([]byte(line), &e)
		valid := json.Valid([]byte(line))
		if err == nil {
			checkEntry(t, &e)
			if !valid {
				t.Fatalf("accepted invalid JSON %q", line)
			}
		}
		var doc map[string]any
		if !valid || json.Unmarshal([]byte(line), &doc) != nil {
			return
		}
		// Valid JSON objects are only refused for what they hold.
		if errors.Is(err, errBadJSON) || errors.Is(err, errTrailing) || errors.Is(err, errNotObject) {
			t.Fatalf("refused a valid object %q: %v", line, err)
		}
		if err != nil || !utf8.ValidString(line) {
			return
		}
		// Where encoding/json and this scanner both read a string, they agree.
		if m, ok := doc["method"].(string); ok && m != string(e.method) {
			t.Fatalf("method %q, encoding/json says %q", e.method, m)
		}
		if b, ok := doc["body"].(string); ok && b != string(e.body) && !strings.ContainsRune(b, utf8.RuneError) {
			t.Fatalf("body %q, encoding/json says %q", e.body, b)
		}
	})
}

// FuzzSource reads arbitrary text as a log and checks that every request it
// makes is one net/http reads back as the same method and target.
func FuzzSource(f *testing.F) {
	f.Add(`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 5 "-" "ua"` + "\n" +
		`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "POST /b HTTP/1.1" 200 5 "-" "u\x0d\x0aX: y"` + "\n")
	f.Add(`{"method":"POST","path":"/x","headers":{"Host":"evil","Content-Length":"9","X":"y"},"body":"hello"}` + "\n" +
		`{"path":"/y","headers":{"Bad Name":"v"}}` + "\n")
	f.Fuzz(func(t *testing.T, log string) {
		src, err := NewSource(strings.NewReader(log), "fuzz", Options{Host: "target", Timed: true})
		if err != nil {
			return
		}
		var r load.SourceRequest
		for {
			if err := src.Next(&r); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			wire := serialized(&r)
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(wire)))
			if err != nil {
				t.Fatalf("net/http cannot read %q: %v", wire, err)
			}
			if req.Host != "target" {
				t.Fatalf("Host is %q in %q", req.Host, wire)
			}
			line, _, _ := bytes.Cut(wire, []byte("\r\n"))
			if want := req.Method + " " + req.RequestURI + " HTTP/1.1"; string(line) != want {
				t.Fatalf("request line %q, net/http read %q", line, want)
			}
			if r.At < 0 {
				t.Fatalf("negative time %s", r.At)
			}
		}
	})
}
