package lab

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTLSAndH2MatricesParse(t *testing.T) {
	for _, tc := range []struct {
		file  string
		cells string // connections/mode/streams of each scenario
	}{
		{"tls.json", "200/tls/0 2000/tls/0 200/tls-no-resume/0 200/tls/0"},
		{"tls-1s.json", "200/tls/0 2000/tls/0 200/tls-no-resume/0 200/tls/0"},
		{"h2.json", "100/h2c/1 100/h2c/10 100/h2c/100 1000/h2c/100"},
		{"h2-1s.json", "100/h2c/1 100/h2c/10 100/h2/10"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sc, err := LoadScenarios(filepath.Join("scenarios", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sc {
				got = append(got, fmt.Sprintf("%d/%s/%d", s.Connections, s.Mode(), s.Streams()))
			}
			if strings.Join(got, " ") != tc.cells {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.cells)
			}
		})
	}
}

func TestScenarioModes(t *testing.T) {
	for _, tc := range []struct {
		name, json, mode, scheme, group, wantErr string
	}{
		{"plain stays plain", `{}`, ModeHTTP1, "http", "keep-alive", ""},
		{"tls keep-alive", `{"tls": {}}`, ModeTLS, "https", "keep-alive over TLS", ""},
		{"new TLS connections are full handshakes by default", `{"keepalive": false, "tls": {}}`, ModeTLSNoResume, "https",
			"new connection per request over TLS, full handshakes", ""},
		{"resumed handshakes", `{"keepalive": false, "tls": {"resume": true}}`, ModeTLS, "https",
			"new connection per request over TLS, resumed handshakes", ""},
		{"h2c", `{"http2": {"streams": 10}}`, ModeH2C, "http", "HTTP/2 (h2c), 10 streams per connection", ""},
		{"h2 over TLS", `{"http2": {}, "tls": {}}`, ModeH2, "https", "HTTP/2 over TLS, 1 stream per connection", ""},
		{"resume with keep-alive is refused", `{"tls": {"resume": true}}`, "", "", "", "tls.resume is for a new connection"},
		{"http2 without keep-alive is refused", `{"keepalive": false, "http2": {}}`, "", "", "", "multiplexes"},
		{"http2 with pipelining is refused", `{"pipeline": 4, "http2": {}}`, "", "", "", "multiplexes"},
		{"negative streams are refused", `{"http2": {"streams": -1}}`, "", "", "", "streams must be"},
		{"unknown tls fields are refused", `{"tls": {"resumed": true}}`, "", "", "", "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := `{"scenarios": [{"name": "s", "connections": 2, "duration": "1s", ` + strings.TrimPrefix(tc.json, "{")
			js = strings.Replace(js, `"1s", }`, `"1s"}`, 1) + `]}`
			sc, err := ParseScenarios([]byte(js))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := sc[0]
			if s.Mode() != tc.mode || s.Scheme() != tc.scheme || s.Group() != tc.group {
				t.Errorf("mode %q scheme %q group %q, want %q %q %q", s.Mode(), s.Scheme(), s.Group(), tc.mode, tc.scheme, tc.group)
			}
		})
	}
}

// fakeGust writes a shell script whose `serve --help` prints help.
func fakeGust(t *testing.T, help string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gust")
	script := "#!/bin/sh\ncat <<'EOF'\n" + help + "\nEOF\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestServerModeCommands(t *testing.T) {
	oldGust := fakeGust(t, "Flags:\n      --addr string   listen\n      --delay duration")
	newGust := fakeGust(t, "Flags:\n      --http2   serve HTTP/2\n      --tls-self-signed   TLS\n      --tls-no-resume\n")
	byName := func(servers []Server, name string) Server {
		for _, s := range servers {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no server %s", name)
		return Server{}
	}
	old := BuiltinServers("/peers", oldGust)
	cur := BuiltinServers("/peers", newGust)
	nginx := Server{Name: "nginx", Command: "scripts/nginx-h2.sh {mode} {addr}"}
	plain := Server{Name: "mine", Command: "mine --addr {addr}"}
	for _, tc := range []struct {
		name    string
		srv     Server
		mode    string
		want    string // in the command line
		wantErr string
	}{
		{"a peer serves TLS self-signed", byName(cur, "fasthttp"), ModeTLS, "-addr A -delay 0s -debug-addr D -tls-self-signed", ""},
		{"a peer refuses resumption for full handshakes", byName(cur, "nbio"), ModeTLSNoResume, "-tls-self-signed -tls-no-resume", ""},
		{"net/http serves h2 over TLS", byName(cur, "nethttp"), ModeH2, "-tls-self-signed -http2", ""},
		{"net/http serves h2c", byName(cur, "nethttp"), ModeH2C, "-h2c", ""},
		{"fasthttp has no HTTP/2", byName(cur, "fasthttp"), ModeH2C, "", "fasthttp does not serve h2c"},
		{"plain cells add nothing", byName(cur, "nethttp"), ModeHTTP1, "-debug-addr D", ""},
		{"gust serve with the flags gets them", byName(cur, "gust-native"), ModeH2, "serve --addr A --delay 0s --debug-addr D --tls-self-signed --http2", ""},
		{"gust serve without them is refused in one line", byName(old, "gust-adapter"), ModeTLS, "", "has no --tls-self-signed flag yet"},
		{"gust serve without --http2 is refused", byName(old, "gust-native"), ModeH2C, "", "has no --http2 flag yet"},
		{"{mode} is filled in", nginx, ModeH2C, "scripts/nginx-h2.sh h2c A", ""},
		{"{mode} says http1 for plain cells", nginx, ModeHTTP1, "scripts/nginx-h2.sh http1 A", ""},
		{"a command without {mode} cannot run TLS cells", plain, ModeTLS, "", "put {mode}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.srv.commandLine("A", "D", 0, tc.mode, "")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("command %q lacks %q", got, tc.want)
			}
		})
	}
}

func TestTargetFits(t *testing.T) {
	for _, tc := range []struct {
		url, mode, wantErr string
	}{
		{"https://127.0.0.1:1/", ModeTLS, ""},
		{"https://127.0.0.1:1/", ModeH2, ""},
		{"http://127.0.0.1:1/", ModeH2C, ""},
		{"http://127.0.0.1:1/", ModeHTTP1, ""},
		{"http://127.0.0.1:1/", ModeTLS, "give an https:// URL"},
		{"https://127.0.0.1:1/", ModeH2C, "give an http:// URL"},
		{"https://127.0.0.1:1/", ModeTLSNoResume, "needs a started server"},
	} {
		t.Run(tc.mode+" at "+tc.url, func(t *testing.T) {
			err := targetFits("t", tc.url, tc.mode)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadersSayWhatTheyCannotRun(t *testing.T) {
	h2 := Scenario{Name: "h", Connections: 1, HTTP2: &HTTP2{Streams: 10}}
	resumed := Scenario{Name: "r", Connections: 1, KeepAlive: new(false), TLS: &TLS{Resume: true}}
	full := Scenario{Name: "f", Connections: 1, KeepAlive: new(false), TLS: &TLS{}}
	for _, tc := range []struct {
		name    string
		err     error
		wantErr string
	}{
		{"gust runs h2c cells", gustCannot(h2), ""},
		{"gust runs h2 (TLS) cells", gustCannot(Scenario{Name: "t", Connections: 1, HTTP2: &HTTP2{Streams: 10}, TLS: &TLS{}}), ""},
		{"gust runs TLS cells", gustCannot(full), ""},
		{"wrk has no HTTP/2", toolCannot("wrk", h2), "does not speak HTTP/2"},
		{"wrk runs resumed cells", toolCannot("wrk", resumed), ""},
		{"wrk runs full-handshake cells", toolCannot("wrk", full), ""},
		{"hey cannot resume", toolCannot("hey", resumed), "does not resume"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.err == nil) != (tc.wantErr == "") || (tc.err != nil && !strings.Contains(tc.err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", tc.err, tc.wantErr)
			}
		})
	}
}

// TestGustLoaderRunsTLSCells: the gust loader runs a TLS cell against a
// self-signed target (it passes Insecure), resumed and full alike.
func TestGustLoaderRunsTLSCells(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("Hello, Go!"))
	}))
	defer srv.Close()
	for _, sc := range []Scenario{
		{Name: "keep-alive", Connections: 2, TLS: &TLS{}, Duration: Duration(200 * time.Millisecond)},
		{Name: "resumed", Connections: 2, KeepAlive: new(false), TLS: &TLS{Resume: true}, Duration: Duration(200 * time.Millisecond)},
	} {
		t.Run(sc.Name, func(t *testing.T) {
			lr, err := GustLoader{Loops: 1}.Load(context.Background(), srv.URL+"/", sc)
			if err != nil {
				t.Fatal(err)
			}
			if lr.Requests == 0 || lr.Errors != 0 {
				t.Errorf("%d requests, %d errors: want some and none", lr.Requests, lr.Errors)
			}
		})
	}
}
