package replay

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
)

// arrival is what the server saw of one request.
type arrival struct {
	method, uri, body string
	headers           string // the test's X- headers, User-Agent and Referer, sorted
	host              string
}

func (a arrival) String() string {
	return fmt.Sprintf("%s %s host=%s [%s] %q", a.method, a.uri, a.host, a.headers, a.body)
}

// recordingServer notes every request that arrives, on loopback.
func recordingServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var hs []string
		for name, values := range r.Header {
			if strings.HasPrefix(name, "X-") || name == "User-Agent" || name == "Referer" || name == "Content-Type" {
				for _, v := range values {
					hs = append(hs, name+": "+v)
				}
			}
		}
		slices.Sort(hs)
		a := arrival{method: r.Method, uri: r.RequestURI, body: string(body), headers: strings.Join(hs, "|"), host: r.Host}
		mu.Lock()
		seen = append(seen, a.String())
		mu.Unlock()
		if r.URL.Path == "/fail" {
			w.WriteHeader(500)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(seen)
		slices.Sort(out)
		return out
	}
}

// jsonLog writes n varied JSON lines and returns them with what the server
// should see for each.
func jsonLog(n int) (string, []string) {
	var log strings.Builder
	var want []string
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		method := methods[i%len(methods)]
		uri := fmt.Sprintf("/api/items/%d?q=a%%20b&i=%d", i%13, i)
		body := fmt.Sprintf(`{"n":%d,"s":"caf\u00e9 \"q\""}`, i)
		headers := map[string]any{"X-Request": fmt.Sprint(i), "X-Multi": []string{"a", fmt.Sprint(i)}, "Host": "prod.example", "Content-Type": "application/json"}
		line := map[string]any{
			"time":    start.Add(time.Duration(i) * 3 * time.Millisecond).Format(time.RFC3339Nano),
			"method":  method,
			"headers": headers,
		}
		if i%2 == 0 {
			line["url"] = "https://prod.example" + uri
		} else {
			line["path"] = uri
		}
		sentBody := ""
		switch method {
		case "POST", "PUT", "PATCH":
			sentBody = body
		}
		if i%3 == 0 {
			line["body_base64"] = base64.StdEncoding.EncodeToString([]byte(body))
		} else {
			line["body"] = body
		}
		enc, _ := json.Marshal(line)
		log.Write(enc)
		log.WriteByte('\n')
		if method == "HEAD" {
			sentBody = ""
		}
		hs := []string{"Content-Type: application/json", "User-Agent: gust", "X-Multi: a", "X-Multi: " + fmt.Sprint(i), "X-Request: " + fmt.Sprint(i), "X-Replay: yes"}
		slices.Sort(hs)
		want = append(want, arrival{method: method, uri: uri, body: sentBody, headers: strings.Join(hs, "|"), host: "HOST"}.String())
	}
	return log.String(), want
}

// combinedLog writes n combined log lines over secs seconds and returns
// them with what the server should see for each.
func combinedLog(n, secs int) (string, []string) {
	var log strings.Builder
	var want []string
	for i := 0; i < n; i++ {
		sec := i * secs / n
		uri := fmt.Sprintf("/users/%d/posts?page=%d&tag=%%C3%%A9", i%17, i%5)
		agent := fmt.Sprintf(`agent/%d (\"quoted\")`, i)
		log.WriteString(fmt.Sprintf(`10.1.2.3 - - [22/Nov/2026:10:%02d:%02d +0100] "GET %s HTTP/1.1" 200 99 "https://ref.example/%d" "%s"`+"\n",
			sec/60, sec%60, uri, i, agent))
		hs := []string{fmt.Sprintf(`User-Agent: agent/%d ("quoted")`, i), fmt.Sprintf("Referer: https://ref.example/%d", i), "X-Replay: yes"}
		slices.Sort(hs)
		want = append(want, arrival{method: "GET", uri: uri, headers: strings.Join(hs, "|"), host: "HOST"}.String())
	}
	return log.String(), want
}

// TestEveryLoggedRequestArrives replays logs over loopback and checks that
// the server saw each logged request once, with its method, path, query,
// headers and body.
func TestEveryLoggedRequestArrives(t *testing.T) {
	jsonl, jsonWant := jsonLog(700)
	clf, clfWant := combinedLog(600, 3)
	tests := []struct {
		name string
		log  []byte
		want []string
		cfg  load.Config
	}{
		{"JSON lines as fast as possible", []byte(jsonl), jsonWant, load.Config{Connections: 16}},
		{"JSON lines at their times, 10x", []byte(jsonl), jsonWant, load.Config{Connections: 4, Speed: 10}},
		{"gzipped combined log at a flat rate", gzipped(clf), clfWant, load.Config{Connections: 8, Rate: 3000}},
		{"combined log, pipelined", []byte(clf), clfWant, load.Config{Connections: 2, Pipeline: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, arrivals := recordingServer(t)
			host := strings.TrimPrefix(srv.URL, "http://")
			src := open(t, writeFile(t, "log", tt.log), Options{Host: host, Header: [][2]string{{"X-Replay", "yes"}}, Timed: tt.cfg.Speed > 0})
			cfg := tt.cfg
			cfg.URL, cfg.Source, cfg.Duration = srv.URL, src, 30*time.Second
			res, err := load.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests != int64(len(tt.want)) || res.ErrorCount() != 0 {
				t.Fatalf("%d responses, errors %v; want %d and none", res.Requests, res.Errors, len(tt.want))
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.Replace(w, "host=HOST", "host="+host, 1)
			}
			slices.Sort(want)
			got := arrivals()
			if len(got) != len(want) {
				t.Fatalf("the server saw %d requests, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("arrivals differ from the log; first difference:\n got %s\nwant %s", got[i], want[i])
				}
			}
			var perEndpoint int64
			for _, ep := range res.Endpoints {
				perEndpoint += ep.Requests
			}
			if perEndpoint != res.Requests {
				t.Errorf("endpoints add up to %d responses, want %d", perEndpoint, res.Requests)
			}
		})
	}
}

// TestEndpointsGroupRequests checks the per-endpoint results of a replay.
func TestEndpointsGroupRequests(t *testing.T) {
	srv, _ := recordingServer(t)
	log := strings.Join([]string{
		clfLine(0, "GET", "/users/1"), clfLine(0, "GET", "/users/2?x=1"), clfLine(0, "GET", "/users/3/"),
		clfLine(0, "POST", "/users"), clfLine(0, "GET", "/fail"), clfLine(0, "GET", "/fail"),
		clfLine(0, "GET", "/orders/0f8fad5b-d9cb-469f-a165-70867728950e"),
	}, "")
	src := open(t, writeFile(t, "a.log", []byte(log)), Options{Host: "x", MaxEndpoints: 3})
	res, err := load.Run(context.Background(), load.Config{URL: srv.URL, Source: src, Connections: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ep := range res.Endpoints {
		got[ep.Name] = fmt.Sprintf("%d responses, %d 5xx", ep.Requests, ep.Status5xx)
	}
	want := map[string]string{
		"GET /users/:id":  "2 responses, 0 5xx",
		"GET /users/:id/": "1 responses, 0 5xx",
		"POST /users":     "1 responses, 0 5xx",
		OtherEndpoint:     "3 responses, 2 5xx", // GET /fail and GET /orders/:id, past the limit
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("endpoints %v\nwant %v", got, want)
	}
}

// TestPacingAtSpeed replays logs spanning 10 s at 5x: they must take 2 s,
// within 10%.
func TestPacingAtSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 4 s")
	}
	srv, _ := recordingServer(t)
	// Whole-second times: 10 seconds of 30 lines each, each second's lines
	// spread over it.
	clf, _ := combinedLog(300, 10)
	// Fractional times from 0 to 10 s.
	var jsonl strings.Builder
	for i := 0; i <= 200; i++ {
		fmt.Fprintf(&jsonl, `{"path":"/j","time":%.3f}`+"\n", 1767000000+float64(i)*0.05)
	}
	for _, tc := range []struct{ name, log string }{{"combined", clf}, {"json", jsonl.String()}} {
		t.Run(tc.name, func(t *testing.T) {
			src := open(t, writeFile(t, "log", []byte(tc.log)), Options{Host: "x", Timed: true})
			start := time.Now()
			res, err := load.Run(context.Background(), load.Config{URL: srv.URL, Source: src, Speed: 5, Connections: 10})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			t.Logf("%s: %d responses in %s (measured %s), %d late", tc.name, res.Requests, took, res.Duration, res.Late)
			// Paced: never ahead of the log at 5x (1.8 s allows the last
			// second's spread). Late is what a busy machine does, so the
			// upper bound only tells 5x from 1x (10 s) or half speed (4 s).
			if res.Duration < 1800*time.Millisecond || res.Duration > 3500*time.Millisecond {
				t.Errorf("the replay took %s, want 2s: not ahead of the log at 5x, and well under 4 s", res.Duration)
			}
			if res.Requests != src.Stats().Requests || res.ErrorCount() != 0 {
				t.Errorf("%d responses, errors %v", res.Requests, res.Errors)
			}
		})
	}
}
