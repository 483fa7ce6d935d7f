package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// journeyServer is a login/items API: /login hands each user a fresh
// token (and a session cookie naming the user), /items wants the latest
// token of the user its cookie names and counts every other one as wrong.
type journeyServer struct {
	mu     sync.Mutex
	tokens map[string]string
	served map[string]int // by user: /items answered with the user's latest token
	issued int
	logins atomic.Int64
	items  atomic.Int64
	wrong  atomic.Int64
	after  atomic.Int64 // requests to /after, which an aborted iteration never reaches
}

func newJourneyServer(t *testing.T) (*journeyServer, *httptest.Server) {
	j := &journeyServer{tokens: map[string]string{}, served: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(j.serve))
	t.Cleanup(srv.Close)
	return j, srv
}

func (j *journeyServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/login":
		j.logins.Add(1)
		var in struct{ User string }
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || json.Unmarshal(body, &in) != nil || in.User == "" {
			http.Error(w, "bad login", http.StatusBadRequest)
			return
		}
		j.mu.Lock()
		j.issued++
		tok := in.User + "-" + strconv.Itoa(j.issued)
		j.tokens[in.User] = tok
		j.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: in.User})
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok": true, "token": "` + tok + `"}`))
	case "/items":
		j.items.Add(1)
		c, err := r.Cookie("sid")
		j.mu.Lock()
		ok := err == nil && r.Header.Get("Authorization") == "Bearer "+j.tokens[c.Value]
		if ok {
			j.served[c.Value]++
		}
		j.mu.Unlock()
		if !ok {
			j.wrong.Add(1)
			http.Error(w, "wrong token", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"items": [1, 2, 3]}`))
	case "/fail":
		http.Error(w, "no", http.StatusServiceUnavailable)
	case "/after":
		j.after.Add(1)
	}
}

const journeyFlow = `steps:
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
    check: {status: 200, json: {path: "items[2]", equals: 3}}
    think: 1ms
`

// flowSummary is the part of -o json a flow run is judged by.
type flowSummary struct {
	Requests  int64 `json:"requests"`
	Endpoints []struct {
		Endpoint string `json:"endpoint"`
		Count    int64  `json:"count"`
	} `json:"endpoints"`
	Flows struct {
		Iterations   int64 `json:"iterations"`
		Aborted      int64 `json:"aborted"`
		ChecksPassed int64 `json:"checks_passed"`
		ChecksFailed int64 `json:"checks_failed"`
		Checks       []struct {
			Step   string `json:"step"`
			Check  string `json:"check"`
			Passed int64  `json:"passed"`
			Failed int64  `json:"failed"`
		} `json:"checks"`
		Steps []struct {
			Step   string           `json:"step"`
			Status map[string]int64 `json:"status"`
		} `json:"steps"`
	} `json:"flows"`
}

func flowRun(t *testing.T, args ...string) flowSummary {
	t.Helper()
	out, stderr, err := gust(t, append([]string{"load", "--quiet", "-o", "json"}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var s flowSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return s
}

// TestLoadFlowFiftyUsersKeepTheirTokens: 50 users each log in and use
// their own token (and cookie) on the next call: no wrong token, every
// iteration two requests, every check passed.
func TestLoadFlowFiftyUsersKeepTheirTokens(t *testing.T) {
	j, srv := newJourneyServer(t)
	f := dataFiles(t, map[string]string{"flow.yaml": journeyFlow})
	s := flowRun(t, "--flow", f["flow.yaml"], "--vus", "50", "--iterations", "1000", srv.URL)
	if j.wrong.Load() != 0 {
		t.Fatalf("%d requests with a wrong token", j.wrong.Load())
	}
	fl := s.Flows
	if fl.Iterations != 1000 || j.logins.Load() != 1000 || j.items.Load() != 1000 || s.Requests != 2000 {
		t.Fatalf("iterations %d, logins %d, items %d, requests %d; want 1000, 1000, 1000, 2000",
			fl.Iterations, j.logins.Load(), j.items.Load(), s.Requests)
	}
	if fl.ChecksPassed != 3000 || fl.ChecksFailed != 0 || fl.Aborted != 0 || len(fl.Checks) != 3 {
		t.Fatalf("flows %+v, want 3000 checks passed", fl)
	}
	if len(s.Endpoints) != 2 || s.Endpoints[0].Count != 1000 || s.Endpoints[1].Count != 1000 {
		t.Fatalf("endpoints %+v, want login and items 1000 each", s.Endpoints)
	}
	if st := fl.Steps; len(st) != 2 || st[0].Step != "login" || st[0].Status["200"] != 1000 || st[1].Status["200"] != 1000 {
		t.Fatalf("steps %+v, want login and items 200: 1000 each", st)
	}
}

// TestLoadFlowFailedChecksAndAbort: a failed check is counted; with
// abort the iteration ends before its next step.
func TestLoadFlowFailedChecksAndAbort(t *testing.T) {
	j, srv := newJourneyServer(t)
	const src = "steps:\n  - name: fail\n    url: /fail\n    check: {status: 200, body: {contains: no}}\n    abort: %s\n  - name: after\n    url: /after\n"
	for _, abort := range []string{"false", "true"} {
		j.after.Store(0)
		f := dataFiles(t, map[string]string{"flow.yaml": strings.Replace(src, "%s", abort, 1)})
		s := flowRun(t, "--flow", f["flow.yaml"], "--vus", "4", "--iterations", "40", srv.URL)
		fl := s.Flows
		if fl.Iterations != 40 || fl.ChecksFailed != 40 || fl.ChecksPassed != 40 {
			t.Fatalf("abort %s: flows %+v, want 40 iterations, 40 checks failed and 40 passed", abort, fl)
		}
		wantAfter, wantAborted := int64(40), int64(0)
		if abort == "true" {
			wantAfter, wantAborted = 0, 40
		}
		if j.after.Load() != wantAfter || fl.Aborted != wantAborted {
			t.Fatalf("abort %s: /after seen %d times, %d aborted; want %d and %d", abort, j.after.Load(), fl.Aborted, wantAfter, wantAborted)
		}
		if fl.Steps[0].Status["503"] != 40 {
			t.Fatalf("abort %s: steps %+v, want fail 503: 40", abort, fl.Steps)
		}
	}
}

// TestLoadFlowShardsMergeExactly: two shards' JSON merged count what one
// run of the whole counts.
func TestLoadFlowShardsMergeExactly(t *testing.T) {
	j, srv := newJourneyServer(t)
	dir := t.TempDir()
	f := dataFiles(t, map[string]string{"flow.yaml": journeyFlow})
	whole := flowRun(t, "--flow", f["flow.yaml"], "--vus", "10", "--iterations", "101", srv.URL)
	var files []string
	for _, shard := range []string{"0/2", "1/2"} {
		out, stderr, err := gust(t, "load", "--quiet", "-o", "json", "--shard", shard, "--flow", f["flow.yaml"], "--vus", "10", "--iterations", "101", srv.URL)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		path := filepath.Join(dir, strings.ReplaceAll(shard, "/", "of")+".json")
		files = append(files, path)
		writeTestFile(t, path, out)
	}
	out, _, err := gust(t, "merge", "-o", "json", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	var merged flowSummary
	if err := json.Unmarshal([]byte(out), &merged); err != nil {
		t.Fatal(err)
	}
	if merged.Flows.Iterations != whole.Flows.Iterations || merged.Flows.ChecksPassed != whole.Flows.ChecksPassed ||
		merged.Flows.ChecksFailed != whole.Flows.ChecksFailed || merged.Requests != whole.Requests || whole.Flows.Iterations != 101 ||
		len(merged.Flows.Steps) != 2 || merged.Flows.Steps[1].Status["200"] != whole.Flows.Steps[1].Status["200"] {
		t.Fatalf("merged %+v\nwhole %+v", merged.Flows, whole.Flows)
	}
	if j.wrong.Load() != 0 {
		t.Fatalf("%d wrong tokens: shards numbered their users alike", j.wrong.Load())
	}
}

// TestLoadFlowThresholds: checks, a step's latency and the iterations'
// duration judged, and a failing one exits 99.
func TestLoadFlowThresholds(t *testing.T) {
	_, srv := newJourneyServer(t)
	f := dataFiles(t, map[string]string{"flow.yaml": journeyFlow})
	out, _, err := gust(t, "load", "--quiet", "--flow", f["flow.yaml"], "--vus", "4", "--iterations", "40",
		"--threshold", "checks>99.9%", "--threshold", "step:login p99<5s", "--threshold", "iteration p95<10s", srv.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Iterations", "Checks", "login", "checks>99.9%"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	_, _, err = gust(t, "load", "--quiet", "--flow", f["flow.yaml"], "--vus", "2", "--iterations", "4",
		"--threshold", "step:items p99<1us", srv.URL)
	if e, ok := err.(exitError); !ok || e.code != exitThresholds {
		t.Fatalf("err = %v, want exit status %d", err, exitThresholds)
	}
}

// TestLoadFlowRejectsBadFiles: a bad flow file is one line naming its
// line and field; an unknown variable names its step.
func TestLoadFlowRejectsBadFiles(t *testing.T) {
	f := dataFiles(t, map[string]string{
		"unknown.yaml": "steps:\n  - name: items\n    url: /items\n    headers: {Authorization: 'Bearer {{tokn}}'}\n",
		"status.yaml":  "steps:\n  - url: /a\n    check: {status: ok}\n",
	})
	_, _, err := gust(t, "load", "--flow", f["unknown.yaml"], "--iterations", "1", "http://127.0.0.1:1/")
	wantOneLineError(t, err, `unknown.yaml:4: headers.Authorization: step "items": unknown variable {{tokn}}`)
	_, _, err = gust(t, "load", "--flow", f["status.yaml"], "--iterations", "1", "http://127.0.0.1:1/")
	wantOneLineError(t, err, "status.yaml:3: check.status:")
	_, _, err = gust(t, "load", "--flow", f["status.yaml"], "-n", "5", "http://127.0.0.1:1/")
	wantOneLineError(t, err, "--flow counts iterations")
	_, _, err = gust(t, "load", "--vus", "5", "http://127.0.0.1:1/")
	wantOneLineError(t, err, "--vus needs --flow")
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadFlowCSVRows: --data-csv columns are variables, a row per user
// (--data-per user) or a row per iteration.
func TestLoadFlowCSVRows(t *testing.T) {
	flowSrc := strings.Replace(journeyFlow, `u{{vu}}`, `{{name}}`, 1)
	for _, per := range []string{"user", "iteration"} {
		j, srv := newJourneyServer(t)
		f := dataFiles(t, map[string]string{"flow.yaml": flowSrc, "users.csv": "name\nann\nbo\ncy\ndee\n"})
		s := flowRun(t, "--flow", f["flow.yaml"], "--data-csv", f["users.csv"], "--data-per", per, "--vus", "2", "--iterations", "40", srv.URL)
		j.mu.Lock()
		users := len(j.tokens)
		j.mu.Unlock()
		want := map[string]int{"user": 2, "iteration": 4}[per]
		if users != want || s.Flows.Iterations != 40 || j.wrong.Load() != 0 {
			t.Fatalf("--data-per %s: %d users logged in, %d iterations, %d wrong tokens; want %d, 40, 0", per, users, s.Flows.Iterations, j.wrong.Load(), want)
		}
	}
}

// TestLoadFlowOnceLogin: a login in once: runs once per user, its token
// and cookie serving every iteration after it.
func TestLoadFlowOnceLogin(t *testing.T) {
	j, srv := newJourneyServer(t)
	src := strings.Replace(journeyFlow, "steps:\n  - name: login", "once:\n  - name: login", 1)
	src = strings.Replace(src, "  - name: items", "steps:\n  - name: items", 1)
	f := dataFiles(t, map[string]string{"flow.yaml": src})
	s := flowRun(t, "--flow", f["flow.yaml"], "--vus", "8", "--iterations", "200", srv.URL)
	if j.logins.Load() != 8 || j.items.Load() != 200 || j.wrong.Load() != 0 || s.Flows.Iterations != 200 || s.Flows.ChecksFailed != 0 {
		t.Fatalf("logins %d, items %d, wrong %d, flows %+v; want 8 logins, 200 items, 0 wrong", j.logins.Load(), j.items.Load(), j.wrong.Load(), s.Flows)
	}
}

// TestLoadFlowManyUsersShareConnections: 2,000 users on 20 connections,
// thinking 20ms, each carried by whichever connection is free: every
// user logs in and uses its own token and cookie (none wrong, though its
// two steps may go out on different connections), and every user runs
// at least one whole iteration.
func TestLoadFlowManyUsersShareConnections(t *testing.T) {
	j, srv := newJourneyServer(t)
	src := strings.Replace(journeyFlow, "think: 1ms", "think: 20ms", 1)
	f := dataFiles(t, map[string]string{"flow.yaml": src})
	const users = 2000
	s := flowRun(t, "--flow", f["flow.yaml"], "--vus", strconv.Itoa(users), "-c", "20", "-z", "3s", srv.URL)
	if j.wrong.Load() != 0 {
		t.Fatalf("%d requests with a wrong token", j.wrong.Load())
	}
	j.mu.Lock()
	served := len(j.served)
	j.mu.Unlock()
	fl := s.Flows
	t.Logf("%d users served, %d iterations", served, fl.Iterations)
	if served != users || fl.Iterations < users || fl.ChecksFailed != 0 || fl.Aborted != 0 {
		t.Fatalf("%d users served, %d iterations (%d aborted), %d checks failed; want %d users, at least %d iterations, none failed",
			served, fl.Iterations, fl.Aborted, fl.ChecksFailed, users, users)
	}
}

// TestFlowConnections: users share -c connections when it is given (no
// more than the users), else one each up to a thousand.
func TestFlowConnections(t *testing.T) {
	tests := []struct {
		name     string
		users, c int
		given    bool
		want     int
	}{
		{"a few users get a connection each", 50, 50, false, 50},
		{"many users share a thousand", 100000, 50, false, maxFlowConnections},
		{"-c given is kept", 100000, 200, true, 200},
		{"-c above the users is cut to them", 10, 200, true, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := flowConnections(tc.users, tc.c, tc.given); got != tc.want {
				t.Fatalf("flowConnections(%d, %d, %v) = %d, want %d", tc.users, tc.c, tc.given, got, tc.want)
			}
		})
	}
}

// TestLoadFlowRedirectCarriesItsCookie: a form login answered 302 with a
// session cookie and a Location (absolute, on the target) is followed by
// a GET that carries the cookie, as are the next steps; a logout's
// Max-Age=0 deletes it, so the last step goes without.
func TestLoadFlowRedirectCarriesItsCookie(t *testing.T) {
	var wrong, home, anon atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("sess")
		switch r.URL.Path {
		case "/signin":
			if r.Method != http.MethodPost || r.FormValue("user") == "" {
				wrong.Add(1)
			}
			http.SetCookie(w, &http.Cookie{Name: "sess", Value: r.FormValue("user"), Path: "/"})
			http.Redirect(w, r, srv.URL+"/home", http.StatusFound)
		case "/home", "/items":
			if r.Method != http.MethodGet || err != nil || c.Value == "" {
				wrong.Add(1)
				http.Error(w, "who?", http.StatusUnauthorized)
				return
			}
			home.Add(1)
			w.Write([]byte("hello " + c.Value))
		case "/logout":
			http.SetCookie(w, &http.Cookie{Name: "sess", Path: "/", MaxAge: -1})
		case "/whoami":
			if err == nil {
				wrong.Add(1)
			} else {
				anon.Add(1)
			}
		}
	}))
	t.Cleanup(srv.Close)
	src := `steps:
  - name: signin
    method: POST
    url: /signin
    headers: {Content-Type: application/x-www-form-urlencoded}
    body: user=u{{vu}}
    check: {status: 200, body: {contains: hello u}}
  - {name: items, url: /items, check: {status: 200}}
  - {name: logout, url: /logout}
  - {name: whoami, url: /whoami}
`
	f := dataFiles(t, map[string]string{"flow.yaml": src})
	s := flowRun(t, "--flow", f["flow.yaml"], "--vus", "4", "--iterations", "40", srv.URL)
	if wrong.Load() != 0 || home.Load() != 80 || anon.Load() != 40 {
		t.Fatalf("%d wrong requests, %d with the cookie, %d after logout; want 0, 80, 40", wrong.Load(), home.Load(), anon.Load())
	}
	if s.Flows.Iterations != 40 || s.Flows.ChecksFailed != 0 || s.Flows.ChecksPassed != 120 {
		t.Fatalf("flows %+v: want 40 iterations, 120 checks passed", s.Flows)
	}
	signin := s.Flows.Steps[0]
	if signin.Step != "signin" || signin.Status["302"] != 40 || signin.Status["200"] != 40 {
		t.Fatalf("signin's statuses %v, want 40 of 302 and 40 of 200", signin.Status)
	}
	if ep := s.Endpoints[0]; ep.Endpoint != "signin" || ep.Count != 80 {
		t.Fatalf("endpoint %+v, want signin with 80 requests: each hop is one", ep)
	}
}
