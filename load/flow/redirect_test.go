package flow

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// sentReq is one request as a test server saw it.
type sentReq struct{ line, cookie, ctype, body string }

// record wraps srv so that every request it answers is kept.
func record(seen *[]sentReq, srv answer) answer {
	return func(r *Request) Response {
		*seen = append(*seen, sentReq{line: r.Method + " " + string(r.Target), cookie: strings.Clone(headerOf(r, "Cookie")),
			ctype: strings.Clone(headerOf(r, "Content-Type")), body: string(r.Body)})
		return srv(r)
	}
}

func head(status int, fields ...string) Response {
	h := fmt.Sprintf("HTTP/1.1 %d X\r\n", status)
	for _, f := range fields {
		h += f + "\r\n"
	}
	return Response{Status: status, Head: []byte(h + "\r\n")}
}

// TestFlowFollowsRedirectWithItsCookie: a login answered 302 with a
// session cookie and a Location is followed at once by a GET carrying
// the cookie; the step's check sees the page it led to, its status
// counts both answers, and the next step sends the cookie too.
func TestFlowFollowsRedirectWithItsCookie(t *testing.T) {
	src := `steps:
  - name: login
    method: POST
    url: /login
    headers: {Content-Type: application/x-www-form-urlencoded}
    body: user=u{{vu}}
    check: {status: 200, body: {contains: welcome}}
  - name: items
    url: /items
    check: {status: 200}
`
	f := compile(t, src, Options{Host: "shop.test:80"})
	st := f.NewStats()
	var seen []sentReq
	drive(t, f.NewUser(3, 3, 1), st, record(&seen, func(r *Request) Response {
		switch string(r.Target) {
		case "/login":
			return head(302, "Set-Cookie: sid=u3; Path=/; HttpOnly", "Location: http://SHOP.test/home?from=login")
		case "/home?from=login":
			return Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: []byte("welcome u3")}
		}
		return head(200)
	}))
	want := []sentReq{
		{line: "POST /login", ctype: "application/x-www-form-urlencoded", body: "user=u3"},
		{line: "GET /home?from=login", cookie: "sid=u3"},
		{line: "GET /items", cookie: "sid=u3"},
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("sent\n  %v\nwant\n  %v", seen, want)
	}
	res := f.Result([]*Stats{st})
	if got := res.Steps[0].Status; got[302] != 1 || got[200] != 1 || len(got) != 2 {
		t.Errorf("login's statuses %v, want one 302 and one 200", got)
	}
	if res.ChecksFailed() != 0 || res.ChecksPassed() != 3 || res.Iterations != 1 {
		t.Errorf("checks %+v, iterations %d: want 3 passed in 1 iteration", res.Checks, res.Iterations)
	}
}

// TestFlowRedirectMethods: 303 turns any method but HEAD into a GET
// without body, 301 and 302 turn a POST into one, 307 and 308 keep the
// method and the body.
func TestFlowRedirectMethods(t *testing.T) {
	for _, tc := range []struct {
		method string
		status int
		want   string
	}{
		{"POST", 303, "GET /next  "},
		{"PUT", 303, "GET /next  "},
		{"HEAD", 303, "HEAD /next text/plain b"},
		{"POST", 302, "GET /next  "},
		{"POST", 301, "GET /next  "},
		{"PUT", 302, "PUT /next text/plain b"},
		{"POST", 307, "POST /next text/plain b"},
		{"POST", 308, "POST /next text/plain b"},
	} {
		t.Run(fmt.Sprintf("%d after %s", tc.status, tc.method), func(t *testing.T) {
			src := fmt.Sprintf("steps:\n  - {method: %s, url: /a, body: b, headers: {Content-Type: text/plain}}\n", tc.method)
			var seen []sentReq
			drive(t, compile(t, src, Options{}).NewUser(1, 1, 1), nil, record(&seen, func(r *Request) Response {
				if string(r.Target) == "/a" {
					return head(tc.status, "Location: /next")
				}
				return head(200)
			}))
			if len(seen) != 2 {
				t.Fatalf("sent %v, want the request and its redirect", seen)
			}
			if got := fmt.Sprintf("%s %s %s", seen[1].line, seen[1].ctype, seen[1].body); got != tc.want {
				t.Errorf("the redirect went as %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFlowRedirectsNotFollowed: a Location on another host, a step whose
// check expects the 3xx, redirects: 0, and a chain past the limit leave
// the 3xx as the step's answer.
func TestFlowRedirectsNotFollowed(t *testing.T) {
	loop := func(r *Request) Response { return head(302, "Location: "+string(r.Target)+"x") }
	for _, tc := range []struct {
		name, src string
		srv       answer
		want      string
		failed    int64
	}{
		{"to another host", "steps:\n  - {url: /a, check: {status: 200}}\n",
			func(*Request) Response { return head(302, "Location: https://sso.test/login") }, "GET /a", 1},
		{"to another port", "steps:\n  - {url: /a, check: {status: 200}}\n",
			func(*Request) Response { return head(302, "Location: http://shop.test:8080/b") }, "GET /a", 1},
		{"to another scheme", "steps:\n  - {url: /a}\n",
			func(*Request) Response { return head(302, "Location: mailto:x@shop.test") }, "GET /a", 0},
		{"when the check expects it", "steps:\n  - {url: /a, check: {status: [301, 302]}}\n", loop, "GET /a", 0},
		{"with redirects: 0", "steps:\n  - {url: /a, redirects: 0}\n", loop, "GET /a", 0},
		{"with redirects: 0 for the file", "redirects: 0\nsteps:\n  - {url: /a}\n", loop, "GET /a", 0},
		{"past the limit", "steps:\n  - {url: /a, redirects: 2, check: {status: 200}}\n", loop, "GET /a,GET /ax,GET /axx", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := compile(t, tc.src, Options{Host: "shop.test"})
			st := f.NewStats()
			sent := drive(t, f.NewUser(1, 1, 1), st, tc.srv)
			if got := strings.Join(sent, ","); got != tc.want {
				t.Errorf("sent %s, want %s", got, tc.want)
			}
			if got := f.Result([]*Stats{st}).ChecksFailed(); got != tc.failed {
				t.Errorf("%d checks failed, want %d", got, tc.failed)
			}
		})
	}
}

// TestFlowRedirectLocations: where relative, absolute and query-only
// Locations lead, and that the fragment is dropped.
func TestFlowRedirectLocations(t *testing.T) {
	for loc, want := range map[string]string{
		"/b?x=1#top":                 "/b?x=1",
		"c":                          "/shop/c",
		"../c":                       "/shop/../c",
		"?page=2":                    "/shop/cart?page=2",
		"http://shop.test":           "/",
		"https://shop.test:443?q":    "/?q",
		"//shop.test/d":              "/d",
		"http://me@shop.test/e f":    "/e%20f",
		"HTTP://shop.test:443/upper": "/upper",
	} {
		t.Run(loc, func(t *testing.T) {
			f := compile(t, "steps:\n  - {url: /shop/cart}\n", Options{Host: "shop.test"})
			sent := drive(t, f.NewUser(1, 1, 1), nil, func(r *Request) Response {
				if string(r.Target) == "/shop/cart" {
					return head(301, "Location: "+loc)
				}
				return head(200)
			})
			if len(sent) != 2 || sent[1] != "GET "+want {
				t.Errorf("sent %v, want the redirect to GET %s", sent, want)
			}
		})
	}
}

// TestFlowCookiePathAndExpiry: a cookie is sent on its path and below
// only, a cookie without Path takes the directory of the request that
// set it, Max-Age=0 and an Expires in the past delete one, and a
// Max-Age runs out on the run's clock.
func TestFlowCookiePathAndExpiry(t *testing.T) {
	past := time.Now().Add(-time.Hour).UTC().Format(cookieTime)
	src := `steps:
  - {name: set, url: /app/login}
  - {name: app, url: /app/items}
  - {name: other, url: /application}
  - {name: drop, url: /app/logout}
  - {name: after, url: /app/items, think: 3s}
  - {name: later, url: /app/items}
`
	var seen []sentReq
	srv := record(&seen, func(r *Request) Response {
		switch string(r.Target) {
		case "/app/login":
			return head(200, "Set-Cookie: sid=1; Path=/app", "Set-Cookie: dir=2", "Set-Cookie: root=3; Path=/",
				"Set-Cookie: brief=4; Max-Age=2", "Set-Cookie: gone=5; Expires="+past, "Set-Cookie: old=6")
		case "/app/logout":
			return head(200, "Set-Cookie: sid=; Path=/app; Max-Age=0", "Set-Cookie: old=; Expires="+past)
		}
		return head(200)
	})
	drive(t, compile(t, src, Options{}).NewUser(1, 1, 1), nil, srv)
	want := []string{
		"",
		"sid=1; dir=2; root=3; brief=4; old=6",
		"root=3",
		"sid=1; dir=2; root=3; brief=4; old=6",
		"dir=2; root=3; brief=4",
		"dir=2; root=3",
	}
	var got []string
	for _, s := range seen {
		got = append(got, s.cookie)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("cookies sent\n  %q\nwant\n  %q", got, want)
	}
}

// TestFlowRedirectAllocatesNothing: a step followed through a redirect,
// its cookie kept, allocates nothing once the user's buffers have grown.
func TestFlowRedirectAllocatesNothing(t *testing.T) {
	f := compile(t, "steps:\n  - {method: POST, url: /login, body: x, check: {status: 200}}\n", Options{Host: "h"})
	st := f.NewStats()
	u := f.NewUser(1, 1, 1)
	var b Builder
	moved := head(303, "Set-Cookie: sid=abc; Path=/", "Location: http://h/home")
	ok := head(200)
	run := func() {
		u.Begin(0)
		for {
			s, _ := u.Next(0, st)
			if s != Send {
				return
			}
			if q := u.Request(&b); q.Method == "POST" {
				u.Done(&moved, 0, st)
			} else {
				u.Done(&ok, 0, st)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Errorf("%.1f allocations per iteration, want 0", n)
	}
}
