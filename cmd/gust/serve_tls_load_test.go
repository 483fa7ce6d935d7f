package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLoadAgainstServeOverTLS is the loopback matrix of gust load against
// gust serve over TLS, on both engines and both gust APIs: keep-alive,
// pipelining, a POST body, a new connection per request (resumed, and full
// when the server refuses resumption), over TLS 1.3 and 1.2: every request
// answered, the handshakes counted as the server allows.
func TestLoadAgainstServeOverTLS(t *testing.T) {
	engines := []struct{ name, engine, api, mode string }{
		{"gust native pooled", "gust", "native", "pooled"},
		{"gust native inline", "gust", "native", "inline"},
		{"gust adapter", "gust", "nethttp", "pooled"},
		{"nethttp", "nethttp", "native", "pooled"},
	}
	loads := []struct {
		name     string
		args     []string
		noResume bool   // the server refuses resumption
		resumed  string // "some", "none", or "" (keep-alive: either)
		max      string // the server's --tls-max ("": TLS 1.3)
	}{
		{"keep-alive", nil, false, "", ""},
		{"pipelined", []string{"--pipeline", "8"}, false, "", ""},
		{"a POST body", []string{"-m", "POST", "-d", strings.Repeat("b", 40000)}, false, "", ""},
		{"a new connection per request resumes", []string{"--disable-keepalive"}, false, "some", ""},
		{"a new connection per request, resumption refused", []string{"--disable-keepalive"}, true, "none", ""},
		{"TLS 1.2, keep-alive", nil, false, "", "1.2"},
		{"TLS 1.2, pipelined", []string{"--pipeline", "8"}, false, "", "1.2"},
		{"TLS 1.2, a new connection per request resumes", []string{"--disable-keepalive"}, false, "some", "1.2"},
	}
	for _, e := range engines {
		for _, l := range loads {
			t.Run(e.name+", "+l.name, func(t *testing.T) {
				base, _ := startTLSServe(t, serveConfig{Engine: e.engine, Mode: e.mode, API: e.api,
					TLS: serveTLSFlags{SelfSigned: true, NoResume: l.noResume, Max: l.max}})
				args := append([]string{"load", "-n", "200", "-c", "4", "--loops", "1", "--timeout", "5s", "-o", "json", "--insecure"}, l.args...)
				stdout, stderr, err := gust(t, append(args, base+"/")...)
				if err != nil {
					t.Fatalf("gust load: %v (stderr %q)", err, stderr)
				}
				var doc struct {
					Requests int64
					Errors   map[string]int64
					Status   map[string]int64
					TLS      *struct {
						Versions map[string]int64
						Full     int64
						Resumed  int64
					}
				}
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatal(err)
				}
				errs := int64(0)
				for _, n := range doc.Errors {
					errs += n
				}
				version := "TLS 1.3"
				if l.max == "1.2" {
					version = "TLS 1.2"
				}
				if doc.Requests != 200 || errs > 0 || doc.Status["200"] != 200 || doc.TLS == nil || len(doc.TLS.Versions) != 1 || doc.TLS.Versions[version] == 0 {
					t.Fatalf("requests %d, status %v, errors %v, tls %+v: want 200 answered 200 over %s only", doc.Requests, doc.Status, doc.Errors, doc.TLS, version)
				}
				if l.resumed == "some" && doc.TLS.Resumed == 0 || l.resumed == "none" && doc.TLS.Resumed != 0 {
					t.Errorf("%d full, %d resumed: want resumed = %v", doc.TLS.Full, doc.TLS.Resumed, l.resumed)
				}
			})
		}
	}
}
