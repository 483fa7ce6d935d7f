package lab

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestHTTP3ScenarioValidation(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, want string // want: a part of the error, "" for valid
	}{
		{"http3 alone is valid", `"http3": {"streams": 10}`, ""},
		{"http3 without streams is valid", `"http3": {}`, ""},
		{"a tls field beside it is valid (QUIC is encrypted anyway)", `"http3": {}, "tls": {}`, ""},
		{"a handler delay is valid", `"http3": {"streams": 4}, "delay": "10ms"`, ""},
		{"negative streams are refused", `"http3": {"streams": -1}`, "http3.streams must be between 1 and 1024, got -1"},
		{"more streams than gust load keeps are refused", `"http3": {"streams": 5000}`, "http3.streams must be between 1 and 1024"},
		{"http3 with http2 is refused", `"http3": {}, "http2": {}`, "give http2 or http3, not both"},
		{"http3 without keep-alive is refused", `"http3": {}, "keepalive": false`, "drop keepalive and pipeline"},
		{"http3 with pipelining is refused", `"http3": {}, "pipeline": 8`, "drop keepalive and pipeline"},
		{"http3 with tls.resume is refused", `"http3": {}, "tls": {"resume": true}`, "drop tls.resume"},
		{"http3 with a file is refused", `"http3": {}, "file": {"size": 1024}`, "file scenarios are HTTP/1.1"},
		{"http3 with websocket is refused", `"http3": {}, "websocket": {"kind": "echo"}`, "WebSocket over HTTP/3 is not supported"},
		{"http3 with an attack is refused", `"http3": {}, "attack": {"kind": "idle-conns", "connections": 10}`, "attacks are TCP connections"},
		{"an unknown http3 field is refused", `"http3": {"stream": 4}`, `unknown field "stream"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"scenarios": [{"name": "h3", "connections": 10, "duration": "1s", ` + tc.scenario + `}]}`
			sc, err := ParseScenarios([]byte(doc))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
				if sc[0].Mode() != ModeH3 {
					t.Errorf("mode %q, want h3", sc[0].Mode())
				}
			case err == nil:
				t.Fatalf("accepted, want an error with %q", tc.want)
			case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
				t.Errorf("error %q, want one line with %q", err, tc.want)
			}
		})
	}
}

func TestHTTP3ModeStreamsAndGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sc      Scenario
		mode    string
		streams int
		scheme  string
		group   string
		ideal   float64
	}{
		{"http3 without streams runs one per connection", Scenario{Connections: 10, HTTP3: &HTTP3{}},
			ModeH3, 1, "https", "HTTP/3 over QUIC, 1 stream per connection", 0},
		{"http3 with a tls field is still h3", Scenario{Connections: 10, HTTP3: &HTTP3{Streams: 10}, TLS: &TLS{}},
			ModeH3, 10, "https", "HTTP/3 over QUIC, 10 streams per connection", 0},
		{"a delay makes the ideal rate count streams", Scenario{Connections: 10, HTTP3: &HTTP3{Streams: 10}, Delay: Duration(100 * time.Millisecond)},
			ModeH3, 10, "https", "HTTP/3 over QUIC, 10 streams per connection, handler waits 100ms", 1000},
		{"h2c is unchanged", Scenario{Connections: 10, HTTP2: &HTTP2{Streams: 4}},
			ModeH2C, 4, "http", "HTTP/2 (h2c), 4 streams per connection", 0},
		{"plain HTTP/1.1 has no streams", Scenario{Connections: 10},
			ModeHTTP1, 0, "http", "keep-alive", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.sc
			if s.Mode() != tc.mode || s.Streams() != tc.streams || s.Scheme() != tc.scheme || s.Group() != tc.group || s.IdealRPS() != tc.ideal {
				t.Errorf("mode %q, streams %d, scheme %q, group %q, ideal %v; want %q, %d, %q, %q, %v",
					s.Mode(), s.Streams(), s.Scheme(), s.Group(), s.IdealRPS(), tc.mode, tc.streams, tc.scheme, tc.group, tc.ideal)
			}
		})
	}
}

// TestHTTP3Cells: of the built-ins only the quic-go peer has a cell in an
// HTTP/3 scenario, started with its certificate, and it has none in the
// others; a --server command is taken at its word and gets {mode} h3; a
// target must be https://.
func TestHTTP3Cells(t *testing.T) {
	h3 := Scenario{Name: "h3", Connections: 1, HTTP3: &HTTP3{Streams: 10}}
	ka := Scenario{Name: "ka", Connections: 1}
	var builtins, inH3 []string
	var all []Server
	for _, s := range BuiltinServers("/peers", "/gust") {
		if s.OnRequest {
			continue
		}
		all = append(all, s)
		builtins = append(builtins, s.Name)
		if runs(s, h3) {
			inH3 = append(inH3, s.Name)
		}
		if s.Name == "gust-native" && s.Modes[ModeH3] != "--tls-self-signed --http3" {
			t.Errorf("gust serve's h3 flags: %q", s.Modes[ModeH3])
		}
		if s.Name != "quicgo" {
			continue
		}
		if runs(s, ka) {
			t.Error("quicgo has a cell in an HTTP/1.1 scenario")
		}
		line, err := s.commandLine("127.0.0.1:9", "127.0.0.1:10", 0, h3.Mode(), "")
		if err != nil || line != "/peers/quicgo -addr 127.0.0.1:9 -delay 0s -debug-addr 127.0.0.1:10 -tls-self-signed" {
			t.Errorf("quicgo's h3 command: %q, %v", line, err)
		}
	}
	if got := strings.Join(inH3, " "); got != "gust-native gust-adapter quicgo" {
		t.Errorf("built-ins with an h3 cell: %q, want gust serve's two and quicgo (of %s)", got, strings.Join(builtins, " "))
	}
	if !strings.Contains(strings.Join(PeerNames, " "), "quicgo") {
		t.Errorf("PeerNames %v: quicgo is not built with the peers", PeerNames)
	}

	custom := Server{Name: "mine", Command: "./mine --addr {addr} --mode {mode}"}
	if !runs(custom, h3) {
		t.Error("a --server command has no h3 cell")
	}
	if line, err := custom.commandLine("127.0.0.1:9", "", 0, ModeH3, ""); err != nil || line != "./mine --addr 127.0.0.1:9 --mode h3" {
		t.Errorf("a --server command for h3: %q, %v", line, err)
	}
	if _, err := (Server{Name: "fixed", Command: "./fixed {addr}"}).commandLine("127.0.0.1:9", "", 0, ModeH3, ""); err == nil || !strings.Contains(err.Error(), "h2c or h3) in its command") {
		t.Errorf("a --server command without {mode}: %v", err)
	}
	if err := targetFits("t", "http://127.0.0.1:9/", ModeH3); err == nil || !strings.Contains(err.Error(), "give an https:// URL") {
		t.Errorf("an http:// target for h3: %v", err)
	}
	if err := targetFits("t", "https://127.0.0.1:9/", ModeH3); err != nil {
		t.Errorf("an https:// target for h3: %v", err)
	}

	got := strings.Join(NotApplicable(all, []Scenario{ka, h3}), "\n")
	want := "not applicable: gorillaws, coderws, gobwasws in ka, h3 (they serve only WebSocket)\n" +
		"not applicable: quicgo in ka (they serve only HTTP/3)\n" +
		"not applicable: fasthttp, nethttp, nbio, nginx in h3 (they serve no HTTP/3)"
	if got != want {
		t.Errorf("NotApplicable:\n%s\nwant\n%s", got, want)
	}
}

// TestLoadersRefuseHTTP3Cells: only the gust loader speaks HTTP/3; the
// others say so in one line before running anything.
func TestLoadersRefuseHTTP3Cells(t *testing.T) {
	sc := Scenario{Name: "h3", Connections: 1, HTTP3: &HTTP3{}, Duration: Duration(time.Second)}
	if err := gustCannot(sc); err != nil {
		t.Errorf("gust: %v", err)
	}
	loaders := []Loader{toolLoaders["wrk"], toolLoaders["hey"], toolLoaders["ab"], H2load{}}
	for _, l := range loaders {
		t.Run(l.Name(), func(t *testing.T) {
			_, err := l.Load(context.Background(), "https://127.0.0.1:9/", sc)
			if err == nil || !strings.Contains(err.Error(), "does not speak HTTP/3: use --loader gust") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want a one-line refusal", err)
			}
		})
	}
}

// TestHTTP3ScenarioFiles: the shipped files parse, every scenario h3.
func TestHTTP3ScenarioFiles(t *testing.T) {
	for _, f := range []string{"scenarios/h3.json", "scenarios/h3-1s.json"} {
		sc, err := LoadScenarios(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sc {
			if s.Mode() != ModeH3 || !strings.HasPrefix(s.Name, "h3-") {
				t.Errorf("%s: %s is mode %q", f, s.Name, s.Mode())
			}
		}
	}
}

// TestRunnerRunsHTTP3Cells runs an h3 cell end to end: a fake HTTP/3
// server (this test binary on internal/quic, standing in for quicgo)
// started on a free UDP port, waited for over QUIC, loaded by the gust
// loader with the scenario's streams. A server whose modes lack h3 has no
// cell, and one that exits instead of serving h3 says so.
func TestRunnerRunsHTTP3Cells(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{
		Servers: []Server{
			{Name: "fake-h3", Command: ShellQuote(exe) + " fake-h3-server {addr} {mode}"},
			{Name: "no-h3", Command: fakeServerCommand(t), Modes: map[string]string{ModeTLS: ""}},
			{Name: "fake-tls", Command: ShellQuote(exe) + " fake-tls-server {addr} {mode}"},
		},
		Scenarios:    []Scenario{{Name: "h3", Connections: 2, HTTP3: &HTTP3{Streams: 4}, Duration: Duration(300 * time.Millisecond)}},
		Loader:       GustLoader{Loops: 1},
		StartTimeout: 5 * time.Second,
	}
	cells := r.Run(context.Background())
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2 (no-h3 has none): %+v", len(cells), cells)
	}
	h3, tlsOnly := cells[0], cells[1]
	if h3.Server != "fake-h3" || h3.Error != "" || h3.Requests == 0 || h3.Errors != 0 || h3.Mode != ModeH3 || h3.Streams != 4 {
		t.Errorf("h3 cell: %+v", h3)
	}
	if tlsOnly.Server != "fake-tls" || !strings.Contains(tlsOnly.Error, "exited before answering") {
		t.Errorf("a server that cannot serve h3: %q %q", tlsOnly.Server, tlsOnly.Error)
	}
}
