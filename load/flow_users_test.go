package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load/flow"
)

func TestUserTimers(t *testing.T) {
	tests := []struct {
		name string
		at   []int64 // pushed in this order, user i waking at at[i]
	}{
		{"none", nil},
		{"one", []int64{5}},
		{"in order", []int64{1, 2, 3, 4, 5}},
		{"reversed", []int64{9, 7, 5, 3, 1}},
		{"ties", []int64{3, 1, 3, 1, 3, 1}},
		{"shuffled", []int64{40, 10, 30, 50, 20, 60, 5, 45, 15, 35}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h userTimers
			for i, at := range tc.at {
				h.push(at, int32(i))
			}
			var got []int64
			for {
				at, ok := h.peek()
				if !ok {
					break
				}
				u := h.pop()
				if tc.at[u] != at {
					t.Fatalf("peek said %d, popped user %d waking at %d", at, u, tc.at[u])
				}
				got = append(got, at)
			}
			want := slices.Clone(tc.at)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("woke at %v, want %v", got, want)
			}
		})
	}
}

// TestUserTimersInterleaved: pushes between pops (users thinking again
// as others wake) keep the heap's order, as a loop uses it.
func TestUserTimersInterleaved(t *testing.T) {
	var h userTimers
	now := int64(0)
	for i := range 1000 {
		h.push(now+int64(i*7919%1000), int32(i))
	}
	for range 5000 {
		at, _ := h.peek()
		if at < now {
			t.Fatalf("woke at %d after %d", at, now)
		}
		now = at
		u := h.pop()
		h.push(now+int64(u%97)+1, u) // thinks again
	}
	if len(h) != 1000 {
		t.Fatalf("%d users in the heap, want 1000", len(h))
	}
}

func TestFlowUsersNumbering(t *testing.T) {
	f, err := flow.Compile([]byte(testFlow), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                  string
		users, loops, firstVU int
	}{
		{"one loop", 5, 1, 0},
		{"users spread over loops", 10, 3, 0},
		{"fewer users than loops", 2, 4, 0},
		{"a later shard's users", 7, 2, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := &FlowRun{Flow: f, Users: tc.users, firstVU: tc.firstVU, users: tc.users + tc.firstVU}
			var vus []int
			for loop := range tc.loops {
				for i, fu := range newFlowUsers(run, loop, tc.loops) {
					if int(fu.id) != i {
						t.Fatalf("loop %d: user %d has id %d", loop, i, fu.id)
					}
					vus = append(vus, fu.u.VU())
				}
			}
			slices.Sort(vus)
			for i, vu := range vus {
				if vu != tc.firstVU+i+1 {
					t.Fatalf("users numbered %v, want %d to %d once each", vus, tc.firstVU+1, tc.firstVU+tc.users)
				}
			}
			if len(vus) != tc.users {
				t.Fatalf("%d users, want %d", len(vus), tc.users)
			}
		})
	}
}

// TestFlowIdleConn: a user takes the connection idle the longest that
// can carry its request; those closed, busy, closing or held by a user
// are passed over.
func TestFlowIdleConn(t *testing.T) {
	tests := []struct {
		name  string
		setup func(c *conn)
		ok    bool
	}{
		{"ready", func(c *conn) {}, true},
		{"closed", func(c *conn) { c.state = stClosed }, false},
		{"backing off", func(c *conn) { c.state = stBackoff }, false},
		{"held by a user", func(c *conn) { c.user = &flowUser{} }, false},
		{"a request in flight", func(c *conn) { c.ses.send(nil, &request{}, exchange{}) }, false},
		{"still writing", func(c *conn) { c.wleft = 10 }, false},
		{"closing", func(c *conn) { c.ses.(*h1session).closeAfter = true }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &flowSchedule{idle: newIdleQueue(2)}
			c, ready := newConn(newH1Session(1, false)), newConn(newH1Session(1, false))
			c.state, ready.state = stActive, stActive
			tc.setup(c)
			s.idle.park(c)
			s.idle.park(ready)
			s.idle.park(c) // once only
			want := ready
			if tc.ok {
				want = c
			}
			if got := s.idleConn(); got != want {
				t.Fatalf("took %p, want %p", got, want)
			}
			if tc.ok && s.idleConn() != ready {
				t.Fatal("the second connection idle was not next")
			}
			if s.idleConn() != nil || s.idle.len() != 0 {
				t.Fatal("the pool gave more connections than it held")
			}
		})
	}
}

// userServer hands each user a token of its own at /login and counts
// the /items calls whose token is not the user's (X-User names it), and
// the users served. Every seventh answer closes its connection, so that
// users see their answers come with a reconnect.
func userServer(t *testing.T) (*httptest.Server, *atomic.Int64, func() int) {
	var wrong, answers atomic.Int64
	var mu sync.Mutex
	served := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if answers.Add(1)%7 == 0 {
			w.Header().Set("Connection", "close")
		}
		switch r.URL.Path {
		case "/login":
			var body [64]byte
			n, _ := r.Body.Read(body[:])
			w.Write([]byte(`{"token":"t-` + string(body[:n]) + `"}`))
		case "/items":
			user := r.Header.Get("X-User")
			if r.Header.Get("Authorization") != "Bearer t-"+user {
				wrong.Add(1)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			mu.Lock()
			served[user] = true
			mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &wrong, func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(served)
	}
}

// TestFlowRunUsersShareConnections: many users on few connections, with
// and without think times (without, a user queues behind those waiting
// rather than keeping its connection), closed and open, connections
// closed by the server now and then: every user sends
// its own token, and in the closed model every user is served (the open
// model begins iterations on whichever users are free).
func TestFlowRunUsersShareConnections(t *testing.T) {
	tests := []struct {
		name         string
		think        string
		users, conns int
		rate         float64
		warmup       time.Duration
		noKeepAlive  bool
	}{
		{"thinking", "think: 2ms", 300, 4, 0, 0, false},
		{"never thinking", "", 100, 3, 0, 0, false},
		{"as many connections as users", "think: 1ms", 8, 8, 0, 0, false},
		{"open model", "think: 1ms", 200, 4, 4000, 0, false},
		{"after a warmup", "think: 1ms", 100, 3, 0, 50 * time.Millisecond, false},
		{"a connection per request", "think: 1ms", 50, 4, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, wrong, served := userServer(t)
			src := "steps:\n  - {name: login, method: POST, url: /login, body: 'u{{vu}}', capture: {token: {json: token}}}\n" +
				"  - {name: items, url: /items, headers: {X-User: 'u{{vu}}', Authorization: 'Bearer {{token}}'}, check: {status: 200}" +
				map[bool]string{true: ", " + tc.think, false: ""}[tc.think != ""] + "}\n"
			f, err := flow.Compile([]byte(src), flow.Options{})
			if err != nil {
				t.Fatal(err)
			}
			iterations := int64(tc.users * 3)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := Run(ctx, Config{URL: srv.URL, Connections: tc.conns, Loops: 2, Warmup: tc.warmup, DisableKeepAlive: tc.noKeepAlive,
				Flow: &FlowRun{Flow: f, Users: tc.users, Iterations: iterations, IterationRate: tc.rate}})
			if err != nil {
				t.Fatal(err)
			}
			fl := res.Flows
			if wrong.Load() != 0 || fl.Iterations != iterations || fl.ChecksFailed() != 0 {
				t.Fatalf("%d wrong tokens, %d iterations, %d checks failed; want 0, %d, 0", wrong.Load(), fl.Iterations, fl.ChecksFailed(), iterations)
			}
			if n := served(); n != tc.users && tc.rate == 0 || n == 0 {
				t.Fatalf("%d users served, want %d", n, tc.users)
			}
			if !strings.Contains(fl.Model, strconv.Itoa(tc.users)+" users") {
				t.Fatalf("model %q does not name the %d users", fl.Model, tc.users)
			}
		})
	}
}

// guideFlow is docs/guides/flows.md's login/items journey, thinking 10s.
const guideFlow = `steps:
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
    think: 10s
`

// flowUserBytes returns the heap that n users of guideFlow on one loop
// hold each, every one logged in (its token captured, a session cookie
// in its jar), its items answered and thinking: HeapInuse before and
// after, over n.
func flowUserBytes(tb testing.TB, n int) float64 {
	f, err := flow.Compile([]byte(guideFlow), flow.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	run := &FlowRun{Flow: f, Users: n, users: n}
	stats := f.NewStats()
	var b flow.Builder
	var body, head []byte
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newFlowUsersSchedule(run, 0, 1, 1000, stats)
	for i := range s.users {
		fu := &s.users[i]
		vu := strconv.Itoa(fu.u.VU())
		head = append(append(append(head[:0], "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: sid=s"...), vu...), "; Path=/; HttpOnly\r\n\r\n"...)
		body = append(append(append(body[:0], `{"ok": true, "token": "u`...), vu...), `-0123456789abcdef"}`...)
		login := flow.Response{Status: 200, Head: head, Body: body}
		items := flow.Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: []byte(`{"items": [1, 2, 3]}`)}
		fu.u.Begin(0)
		for _, r := range []*flow.Response{&login, &items} {
			if what, _ := fu.u.Next(0, stats); what != flow.Send {
				tb.Fatalf("user %d: %v, want a request", i, what)
			}
			fu.u.Request(&b)
			fu.u.Done(r, 0, stats)
		}
		what, at := fu.u.Next(0, stats)
		if what != flow.Wait {
			tb.Fatalf("user %d: %v, want a think", i, what)
		}
		s.timers.push(at, fu.id)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if got := string(s.users[n-1].u.Value("token")); got != "u"+strconv.Itoa(n)+"-0123456789abcdef" {
		tb.Fatalf("the last user's token is %q", got)
	}
	runtime.KeepAlive(s)
	return float64(after.HeapInuse-before.HeapInuse) / float64(n)
}

// TestFlowUserMemory: a user thinking between steps, its token and
// cookie kept, holds at most 2 KB of the generator's heap.
func TestFlowUserMemory(t *testing.T) {
	if per := flowUserBytes(t, 20000); per > 2048 {
		t.Fatalf("%.0f bytes per user, want at most 2048", per)
	} else {
		t.Logf("%.0f bytes per user", per)
	}
}

// BenchmarkFlowUserMemory reports the heap each of 100,000 users of the
// login/items journey holds, thinking, as B/user.
func BenchmarkFlowUserMemory(b *testing.B) {
	var per float64
	for range b.N {
		per = flowUserBytes(b, 100_000)
	}
	b.ReportMetric(per, "B/user")
}
