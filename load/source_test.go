package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/result"
)

// listSource hands out a fixed list of requests, looping passes times.
type listSource struct {
	reqs   []SourceRequest
	names  []string
	passes int
	i      int
}

func (s *listSource) Next(r *SourceRequest) error {
	if s.i >= len(s.reqs)*max(s.passes, 1) {
		return io.EOF
	}
	*r = s.reqs[s.i%len(s.reqs)]
	s.i++
	return nil
}

func (s *listSource) Endpoints() []string { return s.names }

// get returns the head of a GET of path ("GET path HTTP/1.1", Host: test).
func get(path string) RequestHead {
	return headOf(&http1.Request{Method: "GET", Target: path, Host: "test"})
}

// headOf returns r's head, as a Source stages it.
func headOf(r *http1.Request) RequestHead {
	var h RequestHead
	http1.BuildHead(&h, r, nil)
	return h
}

// recorder is a loopback server that notes every request's method and URI.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Method+" "+r.RequestURI+" "+string(body))
		rec.mu.Unlock()
		if handler != nil {
			handler(w, r)
			return
		}
		w.Write([]byte("Hello, Go!"))
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := append([]string(nil), rec.seen...)
	sort.Strings(out)
	return out
}

func TestSourceSendsEveryRequestOnce(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"closed model, one connection", Config{Connections: 1}},
		{"closed model, many connections on two loops", Config{Connections: 20, Loops: 2}},
		{"pipelined", Config{Connections: 3, Pipeline: 4}},
		{"flat rate", Config{Connections: 4, Rate: 5000}},
		{"recorded times at speed 100", Config{Connections: 4, Speed: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder(t, nil)
			src := &listSource{names: []string{"GET /a", "GET /b", "POST /c"}}
			var want []string
			for i := 0; i < 1000; i++ {
				var r SourceRequest
				switch i % 3 {
				case 0:
					r = SourceRequest{Request: get(fmt.Sprintf("/a?i=%d", i)), Endpoint: 0}
					want = append(want, fmt.Sprintf("GET /a?i=%d ", i))
				case 1:
					r = SourceRequest{Request: get(fmt.Sprintf("/b/%d", i)), Endpoint: 1}
					want = append(want, fmt.Sprintf("GET /b/%d ", i))
				case 2:
					body := fmt.Sprintf("body %d", i)
					r = SourceRequest{Endpoint: 2, Body: []byte(body),
						Request: headOf(&http1.Request{Method: "POST", Target: "/c", Host: "test", Body: []byte(body)})}
					want = append(want, "POST /c "+body)
				}
				r.At = time.Duration(i) * time.Millisecond // 1 s of traffic
				src.reqs = append(src.reqs, r)
			}
			sort.Strings(want)
			cfg := tt.cfg
			cfg.URL = rec.URL
			cfg.Source = src
			cfg.Duration = 20 * time.Second // a bound only
			res := run(t, cfg)
			if res.Requests != 1000 || res.ErrorCount() != 0 {
				t.Fatalf("Requests %d errors %v, want 1000 and none", res.Requests, res.Errors)
			}
			got := rec.requests()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the server saw %d requests that differ from the 1000 sent", len(got))
			}
			if len(res.Endpoints) != 3 {
				t.Fatalf("Endpoints = %+v, want 3", res.Endpoints)
			}
			for i, ep := range res.Endpoints {
				if ep.Name != src.names[i] {
					t.Errorf("endpoint %d is %q, want %q", i, ep.Name, src.names[i])
				}
				if want := int64(333 + btoi(i == 0)); ep.Requests != want || ep.Latency.TotalCount() != want {
					t.Errorf("%s: %d responses, %d latencies, want %d", ep.Name, ep.Requests, ep.Latency.TotalCount(), want)
				}
			}
			if res.Scheduled() != (cfg.Rate > 0 || cfg.Speed > 0) {
				t.Errorf("Scheduled() = %v", res.Scheduled())
			}
			if res.Scheduled() && res.Lateness.TotalCount() != 1000 {
				t.Errorf("lateness samples %d, want 1000", res.Lateness.TotalCount())
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSourcePacing(t *testing.T) {
	rec := newRecorder(t, nil)
	t.Run("speed scales recorded times", func(t *testing.T) {
		// 101 requests over 2 s of recorded time, at 4x: 0.5 s.
		src := &listSource{}
		for i := 0; i <= 100; i++ {
			src.reqs = append(src.reqs, SourceRequest{Request: get("/"), At: time.Duration(i) * 20 * time.Millisecond})
		}
		res := run(t, Config{URL: rec.URL, Source: src, Speed: 4, Connections: 4})
		if res.Requests != 101 {
			t.Fatalf("Requests = %d, want 101", res.Requests)
		}
		if res.Duration < 450*time.Millisecond || res.Duration > 600*time.Millisecond {
			t.Errorf("took %s, want about 500ms", res.Duration)
		}
	})
	t.Run("rate ignores recorded times", func(t *testing.T) {
		src := &listSource{}
		for i := 0; i < 200; i++ {
			src.reqs = append(src.reqs, SourceRequest{Request: get("/"), At: time.Hour})
		}
		res := run(t, Config{URL: rec.URL, Source: src, Rate: 500, Connections: 4})
		if res.Requests != 200 {
			t.Fatalf("Requests = %d, want 200", res.Requests)
		}
		if res.Duration < 380*time.Millisecond || res.Duration > 520*time.Millisecond {
			t.Errorf("took %s, want about 400ms (200 at 500/s)", res.Duration)
		}
	})
	t.Run("a duration stops a long replay", func(t *testing.T) {
		src := &listSource{}
		for i := 0; i < 100; i++ {
			src.reqs = append(src.reqs, SourceRequest{Request: get("/"), At: time.Duration(i) * 100 * time.Millisecond})
		}
		start := time.Now()
		res := run(t, Config{URL: rec.URL, Source: src, Speed: 1, Connections: 2, Duration: 300 * time.Millisecond})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Run took %s, want it to stop at 300ms", d)
		}
		if res.Requests < 2 || res.Requests > 4 {
			t.Errorf("Requests = %d, want 3 (at 0, 100 and 200ms)", res.Requests)
		}
	})
	t.Run("a request budget stops it too", func(t *testing.T) {
		src := &listSource{passes: 100}
		src.reqs = []SourceRequest{{Request: get("/")}}
		res := run(t, Config{URL: rec.URL, Source: src, Connections: 3, Requests: 50})
		if res.Requests != 50 {
			t.Errorf("Requests = %d, want 50", res.Requests)
		}
	})
}

func TestSourceHeadRequestsHaveNoBody(t *testing.T) {
	// The server announces a body it does not send for HEAD, as it must.
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			if n%2 == 1 {
				w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
			} else {
				w.WriteString(helloResponse)
			}
			return true
		})
	})
	src := &listSource{passes: 50, reqs: []SourceRequest{
		{Request: headOf(&http1.Request{Method: "HEAD", Host: "x"}), Head: true},
		{Request: get("/")},
	}}
	res := run(t, Config{URL: srv.url(), Source: src, Connections: 1, Timeout: 2 * time.Second})
	if res.Requests != 100 || res.ErrorCount() != 0 {
		t.Errorf("Requests %d errors %v, want 100 and none", res.Requests, res.Errors)
	}
}

func TestSourceErrorsAreCountedPerEndpoint(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/boom":
			w.WriteHeader(503)
		case "/hang":
			// Cut the connection without an answer.
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
		default:
			w.Write([]byte("ok"))
		}
	})
	src := &listSource{names: []string{"ok", "boom", "hang"}, passes: 30, reqs: []SourceRequest{
		{Request: get("/ok"), Endpoint: 0},
		{Request: get("/boom"), Endpoint: 1},
		{Request: get("/hang"), Endpoint: 2},
	}}
	res := run(t, Config{URL: rec.URL, Source: src, Connections: 1})
	byName := map[string]result.Endpoint{}
	for _, ep := range res.Endpoints {
		byName[ep.Name] = ep
	}
	if ep := byName["ok"]; ep.Requests != 30 || ep.Errors != 0 || ep.Status5xx != 0 {
		t.Errorf("ok: %+v, want 30 responses", ep)
	}
	if ep := byName["boom"]; ep.Requests != 30 || ep.Status5xx != 30 || ep.Errors != 0 {
		t.Errorf("boom: %+v, want 30 responses, all 5xx", ep)
	}
	if ep := byName["hang"]; ep.Requests != 0 || ep.Errors != 30 {
		t.Errorf("hang: %+v, want 30 errors", ep)
	}
	if res.Errors[result.ErrClosed] != 30 {
		t.Errorf("errors %v, want 30 closed", res.Errors)
	}
}

func TestSourceAgainstATargetThatGoesDown(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			w.WriteString(helloResponse)
			return true
		})
	})
	src := &listSource{passes: 400, reqs: []SourceRequest{{Request: get("/"), Endpoint: -1}}}
	time.AfterFunc(100*time.Millisecond, srv.close)
	// 400 requests at 1000/s: the last 300 find the target gone, and the
	// replay must still end on its own, with each counted as an error.
	res := run(t, Config{URL: srv.url(), Source: src, Rate: 1000, Connections: 2, Timeout: time.Second, Duration: 10 * time.Second})
	if res.Duration > 2*time.Second {
		t.Errorf("ran %s, want the replay to end soon after 400ms", res.Duration)
	}
	if res.Requests == 0 || res.ErrorCount() == 0 {
		t.Errorf("Requests %d errors %v: want both", res.Requests, res.Errors)
	}
}

func TestSourceConfigErrors(t *testing.T) {
	src := &listSource{reqs: []SourceRequest{{Request: get("/")}}}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"speed without a source", Config{URL: "http://127.0.0.1:1/", Requests: 1, Speed: 2}, "needs a Source"},
		{"speed and rate", Config{URL: "http://127.0.0.1:1/", Source: src, Speed: 2, Rate: 5}, "not both"},
		{"negative speed", Config{URL: "http://127.0.0.1:1/", Source: src, Speed: -1}, "speed"},
		{"keep-alive off", Config{URL: "http://127.0.0.1:1/", Source: src, DisableKeepAlive: true}, "keep-alive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
