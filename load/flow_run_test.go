package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load/flow"
)

const testFlow = `steps:
  - name: login
    method: POST
    url: /login
    body: '{"user":"u{{vu}}"}'
    capture: {token: {json: token}}
    check: {status: 200}
  - name: items
    url: /items
    headers: {Authorization: "Bearer {{token}}"}
    check: {status: 200, body: {contains: items}}
    think: 1ms
`

// tokenServer hands out a token per user at /login (chunked, to cover
// the decoder's path) and counts /items calls with a wrong token.
func tokenServer(t *testing.T, wrong *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			var body [64]byte
			n, _ := r.Body.Read(body[:])
			user := strings.TrimSuffix(strings.TrimPrefix(string(body[:n]), `{"user":"`), `"}`)
			w.Write([]byte(`{"token":"t-` + user + `"}`))
			w.(http.Flusher).Flush()
		case "/items":
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer t-u") {
				wrong.Add(1)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Write([]byte(`{"items":[1,2]}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFlowRunClosed(t *testing.T) {
	var wrong atomic.Int64
	srv := tokenServer(t, &wrong)
	f, err := flow.Compile([]byte(testFlow), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 8, Loops: 2, Flow: &FlowRun{Flow: f, Iterations: 200}})
	if err != nil {
		t.Fatal(err)
	}
	fl := res.Flows
	if fl == nil || fl.Iterations != 200 || wrong.Load() != 0 {
		t.Fatalf("flows %+v, wrong tokens %d", fl, wrong.Load())
	}
	if fl.ChecksPassed() != 600 || fl.ChecksFailed() != 0 {
		t.Fatalf("checks passed %d failed %d, want 600 and 0: %+v", fl.ChecksPassed(), fl.ChecksFailed(), fl.Checks)
	}
	if len(res.Endpoints) != 2 || res.Endpoints[0].Name != "login" || res.Endpoints[0].Requests != 200 || res.Endpoints[1].Requests != 200 {
		t.Fatalf("endpoints %+v", res.Endpoints)
	}
	if res.Requests != 400 {
		t.Fatalf("requests %d, want 400", res.Requests)
	}
}

func TestFlowRunOpen(t *testing.T) {
	var wrong atomic.Int64
	srv := tokenServer(t, &wrong)
	f, err := flow.Compile([]byte(testFlow), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 10, Loops: 2, Flow: &FlowRun{Flow: f, Iterations: 100, IterationRate: 400}})
	if err != nil {
		t.Fatal(err)
	}
	if fl := res.Flows; fl.Iterations != 100 || wrong.Load() != 0 || fl.ChecksFailed() != 0 {
		t.Fatalf("flows %+v, wrong tokens %d", fl, wrong.Load())
	}
}

// TestFlowRunStagesRampUsers: stages asking for at most two users keep
// the other four resting: only users 1 and 2 ever log in.
func TestFlowRunStagesRampUsers(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[string(body)] = true
		mu.Unlock()
		w.Write([]byte(`{"token":"x"}`))
	}))
	defer srv.Close()
	f, err := flow.Compile([]byte("steps:\n  - {name: login, method: POST, url: /login, body: 'u{{vu}}', think: 2ms}\n"), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stages := []Stage{{Duration: 200 * time.Millisecond, Target: 2}, {Duration: 300 * time.Millisecond, Target: 2}}
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 6, Loops: 2, Flow: &FlowRun{Flow: f, Stages: stages}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !seen["u1"] || !seen["u2"] || len(seen) != 2 || res.Flows.Iterations == 0 {
		t.Fatalf("users seen %v, %d iterations; want u1 and u2 only", seen, res.Flows.Iterations)
	}
}

// TestFlowRunEndsWhenTheTargetGoesAway: a run of --iterations whose
// server stops answering and listening ends, its lost iterations aborted
// or used up by failed connects.
func TestFlowRunEndsWhenTheTargetGoesAway(t *testing.T) {
	var logins atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if logins.Add(1) == 20 {
			go func() {
				srv.Listener.Close()
				srv.CloseClientConnections()
			}()
		}
		w.Write([]byte(`{"token":"x"}`))
	}))
	srv.Start()
	defer srv.Close()
	f, err := flow.Compile([]byte(testFlow), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 2, Loops: 1, Timeout: 2 * time.Second, Flow: &FlowRun{Flow: f, Iterations: 30}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted || res.Flows.Iterations > 30 || res.ErrorCount() == 0 {
		t.Fatalf("interrupted %v, %d iterations, %d errors", res.Interrupted, res.Flows.Iterations, res.ErrorCount())
	}
}

// TestFlowRunWarmupIsNotCounted: iterations run during the warmup use
// none of --iterations and count nothing.
func TestFlowRunWarmupIsNotCounted(t *testing.T) {
	var wrong atomic.Int64
	srv := tokenServer(t, &wrong)
	f, err := flow.Compile([]byte(testFlow), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 4, Loops: 2, Warmup: 100 * time.Millisecond, Flow: &FlowRun{Flow: f, Iterations: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if fl := res.Flows; fl.Iterations != 50 || fl.ChecksPassed() != 150 || wrong.Load() != 0 {
		t.Fatalf("flows %+v, wrong tokens %d; want 50 iterations, 150 checks", fl, wrong.Load())
	}
}
