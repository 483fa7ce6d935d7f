package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// parsed is an entry as plain values, for comparison.
type parsed struct {
	method, target, body string
	headers              string // "Name: value" lines joined by "|"
	time                 time.Time
	coarse               bool
}

func plain(e *entry) parsed {
	var hs []string
	for _, h := range e.headers {
		hs = append(hs, string(h[0])+": "+string(h[1]))
	}
	p := parsed{method: string(e.method), target: string(e.target), body: string(e.body), headers: strings.Join(hs, "|"), coarse: e.coarse}
	if e.hasTime {
		p.time = time.Unix(0, e.time).UTC()
	}
	return p
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestParseCLF(t *testing.T) {
	at := mustTime("2000-10-10T20:55:36Z")
	tests := []struct {
		name     string
		combined bool
		line     string
		want     parsed
		err      error
	}{
		{"Apache common", false,
			`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
			parsed{method: "GET", target: "/apache_pb.gif", time: at, coarse: true}, nil},
		{"Apache combined", true,
			`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a?b=1&c=%20 HTTP/1.1" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
			parsed{method: "GET", target: "/a?b=1&c=%20", time: at, coarse: true,
				headers: "Referer: http://www.example.com/start.html|User-Agent: Mozilla/4.08 [en] (Win98; I ;Nav)"}, nil},
		{"nginx combined with dashes and an extra field", true,
			`::1 - - [10/Oct/2000:20:55:36 +0000] "DELETE /users/7 HTTP/2.0" 204 - "-" "-" 0.012`,
			parsed{method: "DELETE", target: "/users/7", time: at, coarse: true}, nil},
		{"nginx escapes", true,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /q?s=\x22x\x22 HTTP/1.1" 200 5 "-" "agent \"quoted\" \\ back"`,
			parsed{method: "GET", target: `/q?s="x"`, time: at, coarse: true, headers: `User-Agent: agent "quoted" \ back`}, nil},
		{"an absolute URL becomes its path", false,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET http://example.com:8080/x/y?z HTTP/1.1" 200 5`,
			parsed{method: "GET", target: "/x/y?z", time: at, coarse: true}, nil},
		{"an absolute URL without a path", false,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET https://example.com HTTP/1.1" 200 5`,
			parsed{method: "GET", target: "/", time: at, coarse: true}, nil},
		{"OPTIONS *", false,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "OPTIONS * HTTP/1.1" 200 0`,
			parsed{method: "OPTIONS", target: "*", time: at, coarse: true}, nil},
		{"HTTP/0.9 has no version", false,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /old" 200 5`,
			parsed{method: "GET", target: "/old", time: at, coarse: true}, nil},
		{"a user name with spaces", false,
			`1.2.3.4 - John Smith [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`,
			parsed{method: "GET", target: "/", time: at, coarse: true}, nil},

		{"no time", false, `1.2.3.4 - - "GET / HTTP/1.1" 200 5`, parsed{}, errNoTime},
		{"a bad month", false, `1.2.3.4 - - [10/Foo/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`, parsed{}, errBadCLFTime},
		{"February 30", false, `1.2.3.4 - - [30/Feb/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`, parsed{}, errBadCLFTime},
		{"no request", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] 200 5`, parsed{}, errNoRequest},
		{"a dash for a request", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 400 0`, parsed{}, errNoRequestLine},
		{"TLS bytes on the HTTP port", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03" 400 157`, parsed{}, errNoTarget},
		{"an unterminated quote", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1 200 5`, parsed{}, errUnterminated},
		{"no status", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1"`, parsed{}, errNoStatus},
		{"a bad version", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTX" 200 5`, parsed{}, errBadVersion},
		{"a space in the path", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a b HTTP/1.1" 200 5`, parsed{}, errCtlInTarget},
		{"a relative path", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET a HTTP/1.1" 200 5`, parsed{}, errBadTarget},
		{"a method that is not a token", false, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "G(T / HTTP/1.1" 200 5`, parsed{}, errBadMethod},
		{"combined without the agent", true, `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`, parsed{}, errNoRefererAgent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := clfParser{combined: tt.combined}
			var e entry
			err := p.parse([]byte(tt.line), &e)
			if err != tt.err {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if got := plain(&e); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name string
		line string
		want parsed
		err  error
	}{
		{"everything", `{"time":"2026-01-02T03:04:05.25Z","method":"POST","url":"/users?x=1","headers":{"Content-Type":"application/json","X-Multi":["a","b"]},"body":"{\"a\":1}"}`,
			parsed{method: "POST", target: "/users?x=1", body: `{"a":1}`, time: mustTime("2026-01-02T03:04:05.25Z"),
				headers: "Content-Type: application/json|X-Multi: a|X-Multi: b"}, nil},
		{"path and the default method", `{"path":"/a/b"}`, parsed{method: "GET", target: "/a/b"}, nil},
		{"an absolute url", `{"url":"https://api.example.com/v1/x?y=2","method":"GET"}`, parsed{method: "GET", target: "/v1/x?y=2"}, nil},
		{"unix seconds", `{"path":"/","time":1767323045}`, parsed{method: "GET", target: "/", time: mustTime("2026-01-02T03:04:05Z"), coarse: true}, nil},
		{"fractional unix seconds", `{"path":"/","time":1767323045.5}`, parsed{method: "GET", target: "/", time: mustTime("2026-01-02T03:04:05.5Z")}, nil},
		{"unix seconds with an exponent", `{"path":"/","time":1.767323045e9}`, parsed{method: "GET", target: "/", time: mustTime("2026-01-02T03:04:05Z")}, nil},
		{"an offset and whole seconds", `{"path":"/","time":"2026-01-02T05:04:05+02:00"}`, parsed{method: "GET", target: "/", time: mustTime("2026-01-02T03:04:05Z"), coarse: true}, nil},
		{"base64 body", `{"method":"PUT","path":"/f","body_base64":"AAEC/w=="}`, parsed{method: "PUT", target: "/f", body: "\x00\x01\x02\xff"}, nil},
		{"escapes and unicode", `{"path":"/caf\u00e9/\ud83d\ude00","body":"a\nb\t\"\\\/"}`, parsed{method: "GET", target: "/café/😀", body: "a\nb\t\"\\/"}, nil},
		{"unknown keys of every kind", `{"x":{"y":[1,2,{"z":null}],"w":true},"n":-1.5e3,"f":false,"path":"/ok"}`, parsed{method: "GET", target: "/ok"}, nil},
		{"nulls", `{"path":"/","headers":null,"time":null,"body":null}`, parsed{method: "GET", target: "/"}, nil},
		{"white space", " { \"path\" : \"/\" , \"method\" : \"GET\" } ", parsed{method: "GET", target: "/"}, nil},

		{"not an object", `["GET","/"]`, parsed{}, errNotObject},
		{"no url", `{"method":"GET"}`, parsed{}, errNoURL},
		{"a number for a url", `{"url":5}`, parsed{}, errNotString},
		{"a bad time", `{"path":"/","time":"yesterday"}`, parsed{}, errBadJSONTime},
		{"an object for a time", `{"path":"/","time":{}}`, parsed{}, errBadJSONTime},
		{"bad headers", `{"path":"/","headers":["a"]}`, parsed{}, errBadHeaders},
		{"a number as a header value", `{"path":"/","headers":{"a":1}}`, parsed{}, errBadHeaders},
		{"bad base64", `{"path":"/","body_base64":"***"}`, parsed{}, errBadBase64},
		{"two bodies", `{"path":"/","body":"a","body_base64":"YQ=="}`, parsed{}, errTwoBodies},
		{"a truncated line", `{"path":"/","body":"abc`, parsed{}, errBadJSON},
		{"a missing comma", `{"path":"/" "method":"GET"}`, parsed{}, errBadJSON},
		{"trailing text", `{"path":"/"} x`, parsed{}, errTrailing},
		{"a control character in a string", "{\"path\":\"/a\x01\"}", parsed{}, errBadJSON},
		{"a bad escape", `{"path":"/\q"}`, parsed{}, errBadJSON},
		{"a bad method", `{"path":"/","method":"GE T"}`, parsed{}, errBadMethod},
		{"a bad path", `{"path":"nope"}`, parsed{}, errBadTarget},
		{"deep nesting", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"path":"/"}`, parsed{}, errTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p jsonParser
			var e entry
			err := p.parse([]byte(tt.line), &e)
			if err != tt.err {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if got := plain(&e); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTimestampsAgreeWithTimeParse(t *testing.T) {
	zones := []string{"+0000", "-0700", "+0530", "+1400", "-1200"}
	start := time.Date(1999, 12, 31, 23, 59, 58, 0, time.UTC)
	for i := 0; i < 2000; i++ {
		at := start.Add(time.Duration(i) * 37 * time.Hour).Add(time.Duration(i*7919) * time.Second)
		zone := zones[i%len(zones)]
		loc, _ := time.Parse("-0700", zone)
		local := at.In(loc.Location())
		clf := local.Format("02/Jan/2006:15:04:05 -0700")
		got, ok := parseCLFTime([]byte(clf))
		if !ok || got != at.UnixNano() {
			t.Fatalf("parseCLFTime(%q) = %d, %v; want %d", clf, got, ok, at.UnixNano())
		}
		frac := at.Add(time.Duration(i) * 1234567)
		rfc := frac.In(loc.Location()).Format(time.RFC3339Nano)
		got, coarse, ok := parseRFC3339([]byte(rfc))
		if !ok || got != frac.UnixNano() || coarse != (frac.Nanosecond() == 0) {
			t.Fatalf("parseRFC3339(%q) = %d, %v, %v; want %d", rfc, got, coarse, ok, frac.UnixNano())
		}
	}
	for _, bad := range []string{"", "2026-01-02", "2026-13-02T00:00:00Z", "2026-01-02T24:00:00Z", "2026-01-02T00:00:00", "2026-01-02T00:00:00.Z", "2026-01-02T00:00:00+2:00"} {
		if _, _, ok := parseRFC3339([]byte(bad)); ok {
			t.Errorf("parseRFC3339(%q) succeeded, want a failure", bad)
		}
	}
}

func TestEndpointTemplates(t *testing.T) {
	tests := []struct{ method, target, want string }{
		{"GET", "/", "GET /"},
		{"GET", "/users/17", "GET /users/:id"},
		{"GET", "/users/17/", "GET /users/:id/"},
		{"PUT", "/users/17/items/42?x=1", "PUT /users/:id/items/:id"},
		{"GET", "/orders/0f8fad5b-d9cb-469f-a165-70867728950e", "GET /orders/:id"},
		{"GET", "/objects/507f1f77bcf86cd799439011", "GET /objects/:id"},
		{"GET", "/blobs/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "GET /blobs/:id"},
		{"GET", "/t/AbCdEf0123456789xyzWQ", "GET /t/:id"},
		{"GET", "/days/2026-11-22", "GET /days/:id"},
		{"GET", "/download/1.2.3/gust.tar.gz", "GET /download/:id/gust.tar.gz"},
		{"GET", "/users/17.json", "GET /users/:id.json"},
		{"GET", "/static/app.10666.js", "GET /static/app.:id.js"},
		{"GET", "/static/main.3f2a1b9c.chunk.css", "GET /static/main.:id.chunk.css"},
		{"GET", "/users/17/", "GET /users/:id/"},
		{"GET", "/api/v1/h264/users", "GET /api/v1/h264/users"},
		{"GET", "/static/deadbeef", "GET /static/deadbeef"},
		{"GET", "/static/app.css", "GET /static/app.css"},
		{"OPTIONS", "*", "OPTIONS *"},
	}
	for _, tt := range tests {
		if got := string(appendEndpoint(nil, []byte(tt.method), []byte(tt.target))); got != tt.want {
			t.Errorf("endpoint of %s %s = %q, want %q", tt.method, tt.target, got, tt.want)
		}
	}
}

func TestEndpointsAreCapped(t *testing.T) {
	eps := newEndpoints(3)
	for _, name := range []string{"a", "b", "c", "d", "e", "a"} {
		eps.id([]byte(name))
	}
	got := strings.Join(eps.list(), ",")
	if want := "a,b,c," + OtherEndpoint; got != want {
		t.Errorf("endpoints = %s, want %s", got, want)
	}
	if eps.id([]byte("e")) != 3 || eps.id([]byte("b")) != 1 {
		t.Error("ids are not stable")
	}
}

func TestHeaderValuesRefuseControlCharacters(t *testing.T) {
	name := []byte("X-Test")
	for n := 0; n < 20; n++ {
		for _, c := range []byte{0, 1, '\r', '\n', 0x1f, 0x7f} {
			for at := 0; at < n; at++ {
				v := []byte(strings.Repeat("a", n))
				v[at] = c
				if validHeader(name, v) == nil {
					t.Fatalf("accepted %q", v)
				}
			}
		}
		for _, c := range []byte{'\t', ' ', '~', 0x80, 0xff} {
			v := bytes.Repeat([]byte{c}, n)
			if err := validHeader(name, v); err != nil {
				t.Fatalf("refused %q: %v", v, err)
			}
		}
	}
}
