package server

import (
	"encoding/json"
	"expvar"
	"fmt"
	"io"
	"net/http"
	"testing"
)

func TestStatsAndExpvar(t *testing.T) {
	s := start(t, hello, Config{})
	// expvar names are process-wide: a fresh one for each run (-count).
	statsRuns++
	name := fmt.Sprintf("gust_test_stats_%d", statsRuns)
	s.PublishExpvar(name)
	for i := 0; i < 3; i++ {
		exchange(t, s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	st := s.Stats()
	if st.Requests != 3 || st.Accepted != 3 || st.BytesRead == 0 || st.BytesWritten == 0 || st.Loops < 1 || st.Goroutines < 1 {
		t.Errorf("Stats = %+v, want 3 requests on 3 connections with bytes counted", st)
	}
	var got Stats
	if err := json.Unmarshal([]byte(expvar.Get(name).String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Requests != 3 {
		t.Errorf("expvar shows %+v, want the same counters", got)
	}
	// The expvar handler serves it too.
	rec := &recorder{header: http.Header{}}
	expvar.Handler().ServeHTTP(rec, &http.Request{Method: "GET"})
	if !json.Valid(rec.body) {
		t.Errorf("/debug/vars is not JSON: %s", rec.body)
	}
}

var statsRuns int

type recorder struct {
	header http.Header
	body   []byte
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(int)             {}
func (r *recorder) Write(p []byte) (int, error) { r.body = append(r.body, p...); return len(p), nil }

var _ io.Writer = (*recorder)(nil)
