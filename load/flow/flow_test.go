package flow

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const loginFlow = `steps:
  - name: login
    method: POST
    url: /login
    headers: {Content-Type: application/json}
    body: '{"user":"u{{vu}}"}'
    capture: {token: {json: token}}
    check: {status: 200}
  - name: items
    method: GET
    url: /items
    headers: {Authorization: "Bearer {{token}}"}
    check: {status: 200}
    think: 1ms
`

func compile(t *testing.T, src string, opts Options) *Flow {
	t.Helper()
	f, err := Compile([]byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// answer is a test server: the response to one request.
type answer func(r *Request) Response

// drive runs u for one iteration against srv and returns the requests
// sent, as "METHOD target".
func drive(t *testing.T, u *User, st *Stats, srv answer) []string {
	t.Helper()
	var sent []string
	var b Builder
	now := int64(0)
	u.Begin(now)
	for i := 0; i < 1000; i++ {
		s, at := u.Next(now, st)
		switch s {
		case Ended:
			return sent
		case Wait:
			now = at
		case Send:
			r := u.Request(&b)
			sent = append(sent, r.Method+" "+string(r.Target))
			resp := srv(r)
			u.Done(&resp, now, st)
		}
	}
	t.Fatal("the iteration never ended")
	return nil
}

func headerOf(r *Request, name string) string {
	for _, h := range r.Header {
		if h[0] == name {
			return h[1]
		}
	}
	return ""
}

func TestFlowLoginTokenIsUsed(t *testing.T) {
	f := compile(t, loginFlow, Options{})
	st := f.NewStats()
	u := f.NewUser(7, 10, 1)
	var gotBody, gotAuth string
	sent := drive(t, u, st, func(r *Request) Response {
		if r.Method == "POST" {
			gotBody = string(r.Body)
			return Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: []byte(`{"ok":true, "token" : "t-7"}`)}
		}
		gotAuth = headerOf(r, "Authorization")
		return Response{Status: 200}
	})
	if strings.Join(sent, ",") != "POST /login,GET /items" {
		t.Fatalf("sent %v", sent)
	}
	if gotBody != `{"user":"u7"}` || gotAuth != "Bearer t-7" {
		t.Fatalf("body %q, auth %q", gotBody, gotAuth)
	}
	r := f.Result([]*Stats{st})
	if r.Iterations != 1 || r.ChecksPassed() != 2 || r.ChecksFailed() != 0 {
		t.Fatalf("result %+v", r)
	}
}

func TestFlowCaptures(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nX-Request-Id: abc-1\r\nContent-Type: application/json\r\n\r\n"
	body := `{"a": {"b": [ {"c": "skip"}, {"c": "x\"y", "n": 12.5} ], "s": "tail"}, "z": null}`
	tests := []struct {
		name, capture, want string
	}{
		{"a JSON path into an array", `{json: "a.b[1].c"}`, `x"y`},
		{"a JSON number as written", `{json: "a.b[1].n"}`, "12.5"},
		{"a JSON object as its text, its space escaped in the URL", `{json: "a.b[0]"}`, `{"c":%20"skip"}`},
		{"a JSON path that is absent", `{json: "a.q"}`, ""},
		{"a JSON null", `{json: z}`, "null"},
		{"a header, any case", `{header: x-request-id}`, "abc-1"},
		{"a missing header", `{header: X-Nothing}`, ""},
		{"a regex's first group", `{regex: '"s": "(\w+)"'}`, "tail"},
		{"a regex's whole match", `{regex: 'ta\w+'}`, "tail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("steps:\n  - url: /a\n    capture: {v: %s}\n  - url: /b?v={{v}}\n", tc.capture)
			f := compile(t, src, Options{})
			u := f.NewUser(1, 1, 1)
			sent := drive(t, u, nil, func(r *Request) Response {
				return Response{Status: 200, Head: []byte(head), Body: []byte(body)}
			})
			if got := strings.TrimPrefix(sent[1], "GET /b?v="); got != tc.want {
				t.Fatalf("captured %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFlowChecks(t *testing.T) {
	resp := Response{Status: 201, Head: []byte("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n"),
		Body: []byte(`{"id": 5, "name": "bob", "tags": ["x"]}`), Latency: int64(3 * time.Millisecond)}
	tests := []struct {
		name, check string
		pass        bool
	}{
		{"status equal", "status: 201", true},
		{"status in a list", "status: [200, 201]", true},
		{"status differs", "status: 200", false},
		{"body contains", "body: {contains: bob}", true},
		{"body lacks", "body: {contains: alice}", false},
		{"json equals a string", "json: {path: name, equals: bob}", true},
		{"json equals a number", "json: {path: id, equals: 5.0}", true},
		{"json differs", "json: {path: id, equals: 6}", false},
		{"json exists", "json: {path: 'tags[0]', exists: true}", true},
		{"json absent but must exist", "json: {path: 'tags[1]', exists: true}", false},
		{"json must be absent", "json: {path: nope, exists: false}", true},
		{"header equal", "header: {content-type: application/json}", true},
		{"header present", "header: {Content-Type: ''}", true},
		{"header missing", "header: {ETag: ''}", false},
		{"latency within", "latency: 5ms", true},
		{"latency over", "latency: 2ms", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := compile(t, "steps:\n  - url: /a\n    check: {"+tc.check+"}\n", Options{})
			st := f.NewStats()
			drive(t, f.NewUser(1, 1, 1), st, func(*Request) Response { return resp })
			r := f.Result([]*Stats{st})
			if got := r.ChecksPassed() == 1; got != tc.pass || r.ChecksPassed()+r.ChecksFailed() != 1 {
				t.Fatalf("passed %d failed %d, want pass=%v", r.ChecksPassed(), r.ChecksFailed(), tc.pass)
			}
		})
	}
}

func TestFlowAbortEndsTheIteration(t *testing.T) {
	src := "steps:\n  - url: /a\n    check: {status: 200}\n    abort: true\n  - url: /b\n"
	f := compile(t, src, Options{})
	st := f.NewStats()
	sent := drive(t, f.NewUser(1, 1, 1), st, func(*Request) Response { return Response{Status: 500} })
	r := f.Result([]*Stats{st})
	if len(sent) != 1 || r.Aborted != 1 || r.Iterations != 1 || r.ChecksFailed() != 1 {
		t.Fatalf("sent %v, result %+v", sent, r)
	}
	// Without abort the iteration goes on.
	f = compile(t, strings.Replace(src, "abort: true", "abort: false", 1), Options{})
	if sent := drive(t, f.NewUser(1, 1, 1), nil, func(*Request) Response { return Response{Status: 500} }); len(sent) != 2 {
		t.Fatalf("sent %v", sent)
	}
}

func TestFlowFailedRequestFailsItsChecks(t *testing.T) {
	f := compile(t, "steps:\n  - url: /a\n    check: {status: 200, latency: 1s}\n  - url: /b\n", Options{})
	st := f.NewStats()
	sent := drive(t, f.NewUser(1, 1, 1), st, func(*Request) Response { return Response{} })
	r := f.Result([]*Stats{st})
	if len(sent) != 1 || r.ChecksFailed() != 2 || r.Aborted != 1 {
		t.Fatalf("sent %v, result %+v", sent, r)
	}
}

func TestFlowThink(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		in       string
		min, max time.Duration
		mean     time.Duration
	}{
		{"250ms", 250 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond},
		{"uniform(1s, 3s)", time.Second, 3 * time.Second, 2 * time.Second},
		{"exponential(100ms)", 0, 2 * time.Second, 100 * time.Millisecond},
		{"exp(1s)", 0, 20 * time.Second, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			th, err := ParseThink(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			const n = 20000
			for i := 0; i < n; i++ {
				d := th.draw(rng)
				if d < int64(tc.min) || d > int64(tc.max) {
					t.Fatalf("draw %v outside [%v, %v]", time.Duration(d), tc.min, tc.max)
				}
				sum += d
			}
			if mean := time.Duration(sum / n); mean < tc.mean*95/100 || mean > tc.mean*105/100 {
				t.Fatalf("mean %v, want about %v", mean, tc.mean)
			}
		})
	}
	for _, bad := range []string{"soon", "uniform(3s, 1s)", "uniform(1s)", "exponential(1s", "-1s", "normal(1s)"} {
		if _, err := ParseThink(bad); err == nil {
			t.Errorf("ParseThink(%q) accepted", bad)
		}
	}
}

func TestFlowThinkWaitsBetweenSteps(t *testing.T) {
	f := compile(t, "steps:\n  - url: /a\n    think: 5ms\n  - url: /b\n", Options{})
	u := f.NewUser(1, 1, 1)
	var b Builder
	u.Begin(0)
	if s, _ := u.Next(0, nil); s != Send {
		t.Fatal("no first request")
	}
	u.Done(&Response{Status: 200}, 10, nil)
	if s, at := u.Next(20, nil); s != Wait || at != 10+int64(5*time.Millisecond) {
		t.Fatalf("got %v until %d, want a wait", s, at)
	}
	if s, _ := u.Next(10+int64(5*time.Millisecond), nil); s != Send || string(u.Request(&b).Target) != "/b" {
		t.Fatalf("got %v", s)
	}
}

func TestFlowChooseRepeatOnce(t *testing.T) {
	src := `once:
  - {name: setup, url: /setup}
steps:
  - repeat: 3
    steps:
      - {name: r, url: "/r/{{iter}}"}
  - choose:
      - weight: 3
        steps: [{name: a, url: /a}]
      - weight: 1
        steps: [{name: b, url: /b}, {name: b2, url: /b2}]
  - {name: end, url: /end}
`
	f := compile(t, src, Options{})
	u := f.NewUser(1, 1, 42)
	count := map[string]int{}
	ok := func(*Request) Response { return Response{Status: 200} }
	first := drive(t, u, nil, ok)
	if strings.Join(first[:4], ",") != "GET /setup,GET /r/0,GET /r/0,GET /r/0" {
		t.Fatalf("first iteration %v", first)
	}
	const n = 4000
	for i := 0; i < n; i++ {
		sent := drive(t, u, nil, ok)
		if sent[0] == "GET /setup" || len(sent) < 5 || sent[len(sent)-1] != "GET /end" {
			t.Fatalf("iteration %d sent %v", i, sent)
		}
		count[sent[3]]++
		if sent[3] == "GET /b" && sent[4] != "GET /b2" {
			t.Fatalf("alternative b cut short: %v", sent)
		}
	}
	if a := count["GET /a"]; a < n*70/100 || a > n*80/100 || a+count["GET /b"] != n {
		t.Fatalf("choices %v, want about 3:1", count)
	}
}

func TestFlowNestedRepeat(t *testing.T) {
	src := "steps:\n  - repeat: 2\n    steps:\n      - url: /o\n      - repeat: 3\n        steps: [{url: /i}]\n"
	f := compile(t, src, Options{})
	sent := drive(t, f.NewUser(1, 1, 1), nil, func(*Request) Response { return Response{Status: 200} })
	if got := strings.Join(sent, ","); got != "GET /o,GET /i,GET /i,GET /i,GET /o,GET /i,GET /i,GET /i" {
		t.Fatalf("sent %s", got)
	}
}

func TestFlowCookies(t *testing.T) {
	src := "steps:\n  - {name: a, url: /a}\n  - {name: b, url: /b}\n  - {name: c, url: /c}\n"
	var seen []string
	srv := func(r *Request) Response {
		seen = append(seen, strings.Clone(headerOf(r, "Cookie")))
		switch string(r.Target) {
		case "/a":
			return Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\nSet-Cookie: sid=s1; Path=/; HttpOnly\r\nset-cookie: theme=\"dark\"\r\n\r\n")}
		case "/b":
			return Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\nSet-Cookie: sid=s2\r\nSet-Cookie: theme=; Max-Age=0\r\n\r\n")}
		}
		return Response{Status: 200}
	}
	f := compile(t, src, Options{})
	drive(t, f.NewUser(1, 1, 1), nil, srv)
	if want := []string{"", "sid=s1; theme=dark", "sid=s2"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("cookies sent %q, want %q", seen, want)
	}
	seen = nil
	f = compile(t, "cookies: false\n"+src, Options{})
	drive(t, f.NewUser(1, 1, 1), nil, srv)
	if fmt.Sprint(seen) != "[  ]" {
		t.Fatalf("cookies sent with the jar off: %q", seen)
	}
}

func TestFlowCSV(t *testing.T) {
	src := "steps:\n  - url: '/u/{{name}}?vu={{vu}}&i={{iter}}'\n"
	cols, rows := []string{"name"}, [][]string{{"ann"}, {"bo"}, {"cy"}}
	tests := []struct {
		name    string
		perIter bool
		vu      int
		want    []string
	}{
		{"a row per user", false, 2, []string{"GET /u/bo?vu=2&i=0", "GET /u/bo?vu=2&i=1", "GET /u/bo?vu=2&i=2"}},
		{"a row per iteration", true, 1, []string{"GET /u/ann?vu=1&i=0", "GET /u/cy?vu=1&i=1", "GET /u/bo?vu=1&i=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := compile(t, src, Options{Columns: cols, Rows: rows, PerIteration: tc.perIter})
			u := f.NewUser(tc.vu, 2, 1)
			var got []string
			for i := 0; i < 3; i++ {
				got = append(got, drive(t, u, nil, func(*Request) Response { return Response{Status: 200} })...)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFlowJSONFile(t *testing.T) {
	src := `{"steps": [{"name": "x", "url": "/x", "check": {"status": [200]}}]}`
	f := compile(t, src, Options{})
	if got := f.Steps(); fmt.Sprint(got) != "[x]" {
		t.Fatalf("steps %v", got)
	}
}

func TestFlowIterationDuration(t *testing.T) {
	f := compile(t, "steps:\n  - url: /a\n    think: 2ms\n", Options{})
	st := f.NewStats()
	drive(t, f.NewUser(1, 1, 1), st, func(*Request) Response { return Response{Status: 200} })
	if got := f.Result([]*Stats{st}).Duration.Max(); got < 1990 || got > 2010 {
		t.Fatalf("iteration took %d us, want 2000", got)
	}
}

func TestFlowVariablesCannotBreakTheRequest(t *testing.T) {
	src := "steps:\n  - url: /a\n    capture: {v: {json: v}}\n  - url: '/b?q={{v}}'\n    headers: {X-V: '{{v}}'}\n"
	f := compile(t, src, Options{})
	var target, hdr string
	drive(t, f.NewUser(1, 1, 1), nil, func(r *Request) Response {
		if string(r.Target) == "/a" {
			return Response{Status: 200, Body: []byte(`{"v": "x y\r\nEvil: 1"}`)}
		}
		target, hdr = string(r.Target), strings.Clone(headerOf(r, "X-V"))
		return Response{Status: 200}
	})
	if target != "/b?q=x%20y%0D%0AEvil:%201" || hdr != "x y  Evil: 1" {
		t.Fatalf("target %q, header %q", target, hdr)
	}
}

func TestFlowHeaderForEveryStep(t *testing.T) {
	f := compile(t, "steps:\n  - {url: /a, headers: {X-B: b}}\n  - url: /c\n", Options{Header: [][2]string{{"X-Run", "r1"}}})
	var got []string
	drive(t, f.NewUser(1, 1, 1), nil, func(r *Request) Response {
		got = append(got, fmt.Sprint(r.Header))
		return Response{Status: 200}
	})
	if want := "[[[X-Run r1] [X-B b]] [[X-Run r1]]]"; fmt.Sprint(got) != want {
		t.Fatalf("headers %v, want %s", got, want)
	}
}

func TestFlowReadsBodyOnlyWhereNeeded(t *testing.T) {
	src := `steps:
  - {name: plain, url: /a, check: {status: 200, latency: 1s}, capture: {id: {header: X-Id}}}
  - {name: json, url: /b, capture: {t: {json: t}}}
  - {name: regex, url: /c, capture: {r: {regex: 'x'}}}
  - {name: contains, url: /d, check: {body: {contains: ok}}}
`
	f := compile(t, src, Options{})
	var got []bool
	for i := range f.Steps() {
		got = append(got, f.ReadsBody(i))
	}
	if fmt.Sprint(got) != "[false true true true]" {
		t.Fatalf("ReadsBody by step %v", got)
	}
}
