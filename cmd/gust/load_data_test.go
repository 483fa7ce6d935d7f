package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// seenRequests records every request a loopback server gets, in order, as
// "PROTO METHOD URI X-User=.. Content-Type=.. body".
type seenRequests struct {
	mu   sync.Mutex
	list []string
}

func (s *seenRequests) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		line := fmt.Sprintf("%s %s %s", r.Method, r.RequestURI, body)
		if v := r.Header.Get("X-User"); v != "" {
			line += " X-User=" + v
		}
		if v := r.Header.Get("Content-Type"); v != "" {
			line += " Content-Type=" + v
		}
		if r.ProtoMajor == 2 {
			line = "h2 " + line
		}
		s.mu.Lock()
		s.list = append(s.list, line)
		s.mu.Unlock()
		w.Write([]byte("Hello, Go!"))
	})
}

func (s *seenRequests) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list)
}

// dataFiles writes the files of a data-driven run into a new folder and
// returns their paths by name.
func dataFiles(t *testing.T, files map[string]string) map[string]string {
	dir := t.TempDir()
	paths := map[string]string{}
	for name, text := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

const usersCSV = "id,name\n1,ada\n2,grace\n3,\"linus, t\"\n4,barbara\n"

// TestLoadTargetsSendsExactlyTheRequests: --targets in order with
// --data-csv over one connection, the server seeing each request with its
// method, path, header fields and body filled from its row, in order, and
// the run ending with the rows, saying so; per-endpoint results reported.
func TestLoadTargetsSendsExactlyTheRequests(t *testing.T) {
	var seen seenRequests
	srv := httptest.NewServer(seen.handler())
	defer srv.Close()
	f := dataFiles(t, map[string]string{
		"targets.txt": "# users\nGET /users/{{id}}?v=1\nX-User: {{name}}\n\n" +
			"POST " + srv.URL + "/users @user.json\nContent-Type: application/json\n" +
			"PUT /inline {\"n\":\"{{name}}\"}\n",
		"user.json": `{"id":{{id}},"name":"{{name}}"}`,
		"users.csv": usersCSV,
	})
	out, stderr, err := gust(t, "load", "-c", "1", "--loops", "1", "--quiet", "--targets", f["targets.txt"],
		"--targets-order", "seq", "--data-csv", f["users.csv"], srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /users/1?v=1  X-User=ada",
		`POST /users {"id":2,"name":"grace"} Content-Type=application/json`,
		`PUT /inline {"n":"linus, t"}`,
		"GET /users/4?v=1  X-User=barbara",
	}
	if got := seen.get(); !slices.Equal(got, want) {
		t.Errorf("server saw\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(stderr, "rows of "+f["users.csv"]+" were used up (4 sent") {
		t.Errorf("stderr %q does not say the rows ran out", stderr)
	}
	for _, ep := range []string{"GET /users/{{id}}?v=1", "POST /users", "PUT /inline"} {
		if !strings.Contains(out, ep) {
			t.Errorf("report lacks endpoint %q:\n%s", ep, out)
		}
	}
}

// TestLoadTargetsWeights: weights 3:1 (JSON lines), interleaved (exact
// over whole rounds, one connection) and at random (within 5%).
func TestLoadTargetsWeights(t *testing.T) {
	for _, order := range []string{"weighted", "random"} {
		var seen seenRequests
		srv := httptest.NewServer(seen.handler())
		f := dataFiles(t, map[string]string{"t.jsonl": `{"url":"/a","weight":3}` + "\n" + `{"method":"POST","path":"/b","body_base64":"aGk="}` + "\n"})
		_, _, err := gust(t, "load", "-c", "1", "--loops", "1", "-n", "2000", "--quiet", "--targets", f["t.jsonl"],
			"--targets-order", order, "--seed", "7", srv.URL)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, r := range seen.get() {
			count[r]++
		}
		a, b := count["GET /a "], count["POST /b hi"]
		if a+b != 2000 {
			t.Fatalf("%s: server saw %v, want 2000 of GET /a and POST /b hi", order, count)
		}
		if order == "weighted" && (a != 1500 || b != 500) || order == "random" && (a < 1425 || a > 1575) {
			t.Errorf("%s: /a %d times, /b %d, want 3:1", order, a, b)
		}
	}
}

// TestLoadDataOverH2TLSRateAndShards: templates over h2c, over TLS with a
// rate, and two shards taking disjoint rows that together are all of them.
func TestLoadDataOverH2TLSRateAndShards(t *testing.T) {
	f := dataFiles(t, map[string]string{"users.csv": usersCSV})
	byID := func(list []string) []string {
		var ids []string
		for _, r := range list {
			for _, f := range strings.Fields(r) {
				if strings.HasPrefix(f, "/u/") {
					ids = append(ids, f)
				}
			}
		}
		slices.Sort(ids)
		return ids
	}
	wantIDs := []string{"/u/1", "/u/2", "/u/3", "/u/4"}

	var h2 seenRequests
	h2srv := &http.Server{Handler: h2.handler(), Protocols: &http.Protocols{}}
	h2srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go h2srv.Serve(ln)
	defer h2srv.Close()
	_, _, err = gust(t, "load", "--http2", "-m", "4", "-c", "1", "--quiet", "--data-csv", f["users.csv"],
		"-m", "POST", "-H", "X-User: {{name}}", "-d", "{{id}}", "http://"+ln.Addr().String()+"/u/{{id}}")
	if err != nil {
		t.Fatal(err)
	}
	got := h2.get()
	if len(got) != 4 || !slices.Contains(got, "h2 POST /u/3 3 X-User=linus, t") || !slices.Equal(byID(got), wantIDs) {
		t.Errorf("h2c server saw %q", got)
	}

	var tlsSeen seenRequests
	tlsSrv := httptest.NewTLSServer(tlsSeen.handler())
	defer tlsSrv.Close()
	_, _, err = gust(t, "load", "--insecure", "--rate", "200", "-z", "1s", "-c", "2", "--quiet", "--data-csv", f["users.csv"],
		"--data-loop", "--data-order", "random", tlsSrv.URL+"/u/{{id}}")
	if err != nil {
		t.Fatal(err)
	}
	if got := tlsSeen.get(); len(got) < 150 || len(got) > 250 || !slices.Contains(got, "GET /u/4 ") {
		t.Errorf("TLS server saw %d requests at --rate 200 for 1s: %q...", len(got), got[:min(len(got), 4)])
	}

	var sharded seenRequests
	srv := httptest.NewServer(sharded.handler())
	defer srv.Close()
	for i := range 2 {
		_, _, err = gust(t, "load", "--shard", fmt.Sprintf("%d/2", i), "-c", "2", "--quiet", "--data-csv", f["users.csv"], srv.URL+"/u/{{id}}")
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := sharded.get(); !slices.Equal(byID(got), wantIDs) {
		t.Errorf("two shards sent %q, want each row once", got)
	}
}

// TestLoadDataRefusesBadInput: every mistake is one line, exit status 2,
// before anything is sent.
func TestLoadDataRefusesBadInput(t *testing.T) {
	var seen seenRequests
	srv := httptest.NewServer(seen.handler())
	defer srv.Close()
	f := dataFiles(t, map[string]string{
		"users.csv": usersCSV,
		"bad.csv":   "id,name\n1,a\n2\n",
		"bad.jsonl": "{\"url\":\"/\"}\n{\"url\":\"/\",\n",
		"t.txt":     "GET /{{uid}}\n",
		"other.txt": "GET http://example.test/\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-csv", f["users.csv"], srv.URL + "/{{uid}}"}, "placeholder {{uid}} names no column of the data (its columns: id, name)"},
		{[]string{"--targets", f["t.txt"], "--data-csv", f["users.csv"], srv.URL}, f["t.txt"] + ":1: placeholder {{uid}} names no column"},
		{[]string{"-H", "X: {{id}}", "--targets", f["t.txt"], srv.URL}, "needs data"},
		{[]string{"--data-csv", f["bad.csv"], srv.URL + "/{{id}}"}, f["bad.csv"] + ":3: wrong number of fields"},
		{[]string{"--targets", f["bad.jsonl"], srv.URL}, f["bad.jsonl"] + ":2: bad JSON"},
		{[]string{"--targets", f["other.txt"], srv.URL}, "is not on the run's server"},
		{[]string{"--targets", f["t.txt"], "-d", "x", srv.URL}, "drop -d/-D"},
		{[]string{"--targets", f["t.txt"], "-m", "POST", srv.URL}, "drop -m"},
		{[]string{"--data-loop", srv.URL}, "--data-loop needs --targets or --data-csv"},
		{[]string{"--targets", f["t.txt"], "--data-loop", srv.URL}, "--data-loop and --data-order need --data-csv"},
		{[]string{"--data-csv", f["users.csv"], "--data-order", "shuffle", srv.URL}, `--data-order "shuffle": use seq or random`},
		{[]string{"--targets", f["t.txt"], "--targets-order", "x", srv.URL}, `--targets-order "x"`},
		{[]string{"--targets", f["t.txt"], "--targets-format", "xml", srv.URL}, "unknown targets format"},
		{[]string{"--targets", "/nonexistent/t.txt", srv.URL}, "--targets: open /nonexistent/t.txt"},
		{[]string{"--data-csv", f["users.csv"], "--disable-keepalive", srv.URL}, "drop --disable-keepalive"},
		{[]string{"--data-csv", f["users.csv"], "ws://127.0.0.1:1/"}, "are for http:// and https:// URLs"},
	} {
		_, _, err := gust(t, append([]string{"load", "-n", "10", "--quiet"}, tc.args...)...)
		wantOneLineError(t, err, tc.want)
		if code := exitCode(err); code != 2 {
			t.Errorf("%v: exit status %d, want 2", tc.args, code)
		}
	}
	if got := seen.get(); len(got) != 0 {
		t.Errorf("refused runs sent %q", got)
	}
}
