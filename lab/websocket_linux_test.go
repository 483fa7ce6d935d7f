package lab

import (
	"context"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/server"
)

func TestWebSocketMatricesParse(t *testing.T) {
	for _, tc := range []struct {
		file  string
		cells string // connections/mode/kind of each scenario
	}{
		{"websocket.json", "200/ws/echo 10000/ws/echo 15000/ws/hold 10000/ws/broadcast"},
		{"websocket-1s.json", "50/ws/echo 200/ws/hold 200/ws/broadcast"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sc, err := LoadScenarios(filepath.Join("scenarios", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sc {
				got = append(got, fmt.Sprintf("%d/%s/%s", s.Connections, s.Mode(), s.WebSocket.Kind))
			}
			if strings.Join(got, " ") != tc.cells {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.cells)
			}
		})
	}
}

func TestWebSocketScenarioRefusals(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"kind": "chat"}`, "must be echo, hold or broadcast"},
		{`{"kind": "echo", "rate": 5}`, "websocket.rate is the broadcast sender's"},
		{`{"kind": "echo", "size": -1}`, "websocket.size must be between"},
		{`{"kind": "broadcast"}, "duration": "2s`, "a broadcast needs a duration of 4s"},
		{`{"kind": "echo"}, "pipeline": 4, "duration": "1s`, "takes no tls, http2"},
		{`{"kind": "echo"}, "tls": {}, "duration": "1s`, "takes no tls, http2"},
	} {
		dur := `, "duration": "5s"`
		if strings.Contains(tc.json, "duration") {
			dur = `"`
		}
		in := `{"scenarios": [{"name": "x", "connections": 1, "websocket": ` + tc.json + dur + `}]}`
		_, err := ParseScenarios([]byte(in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", in, err, tc.want)
		}
	}
}

func TestWebSocketOnlyServersSkipHTTPScenarios(t *testing.T) {
	srvs := BuiltinServers("/peers", "/gust")
	http1 := Scenario{Name: "ka", Connections: 1}
	ws := Scenario{Name: "ws", Connections: 1, WebSocket: &WebSocket{Kind: WSEcho}}
	var inHTTP, inWS []string
	for _, s := range srvs {
		if s.OnRequest {
			continue
		}
		if runs(s, http1) {
			inHTTP = append(inHTTP, s.Name)
		}
		if runs(s, ws) {
			if _, ok := s.Modes[ModeWS]; ok {
				inWS = append(inWS, s.Name)
			}
		}
	}
	if got, want := strings.Join(inHTTP, " "), "fasthttp nethttp nbio gust-native gust-adapter nginx"; got != want {
		t.Errorf("HTTP cells for %q, want %q", got, want)
	}
	if got, want := strings.Join(inWS, " "), "nbio gust-native gust-adapter gorillaws coderws gobwasws"; got != want {
		t.Errorf("WebSocket cells for %q, want %q", got, want)
	}
}

// TestServersWithoutWebSocketSkipWebSocketScenarios: the default matrix
// gives fasthttp, net/http and nginx no cell in a WebSocket scenario (they
// would only fail: they serve no /ws), nor the HTTP/3 peer, and a
// --server command one.
func TestServersWithoutWebSocketSkipWebSocketScenarios(t *testing.T) {
	ws := Scenario{Name: "ws", Connections: 1, WebSocket: &WebSocket{Kind: WSEcho}}
	var skipped []string
	for _, s := range BuiltinServers("/peers", "/gust") {
		if !s.OnRequest && !runs(s, ws) {
			skipped = append(skipped, s.Name)
		}
	}
	if got, want := strings.Join(skipped, " "), "fasthttp nethttp quicgo nginx"; got != want {
		t.Errorf("no WebSocket cells for %q, want %q", got, want)
	}
	if custom := (Server{Name: "mine", Command: "./mine --mode {mode}"}); !runs(custom, ws) {
		t.Error("a --server command has no WebSocket cell")
	}
	// gust bench says so once, a line per reason.
	var builtins []Server
	for _, s := range BuiltinServers("/peers", "/gust") {
		if !s.OnRequest {
			builtins = append(builtins, s)
		}
	}
	got := strings.Join(NotApplicable(builtins, []Scenario{{Name: "ka"}, ws}), "\n")
	want := "not applicable: gorillaws, coderws, gobwasws in ka (they serve only WebSocket)\n" +
		"not applicable: fasthttp, nethttp, nginx in ws (they serve no WebSocket)\n" +
		"not applicable: quicgo in ka, ws (they serve only HTTP/3)"
	if got != want {
		t.Errorf("NotApplicable:\n%s\nwant\n%s", got, want)
	}
}

// TestGustLoaderWebSocketKinds runs each kind against a gust/server in
// this process answering /ws (echo) and /ws/broadcast as gust serve does.
func TestGustLoaderWebSocketKinds(t *testing.T) {
	var group server.WSGroup
	echo := server.WebSocket{OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) { ws.Send(typ, data) }}
	bcast := server.WebSocket{
		OnOpen:    func(ws *server.WSConn) { group.Add(ws) },
		OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) { group.Broadcast(typ, data) },
	}
	s := &server.Server{
		Handler: server.HandlerFunc(func(c *server.Ctx) {
			switch string(c.Path()) {
			case "/ws":
				c.UpgradeWebSocket(&echo)
			case "/ws/broadcast":
				c.UpgradeWebSocket(&bcast)
			default:
				c.WriteString("ok")
			}
		}),
		Config: server.Config{ErrorLog: log.New(io.Discard, "", 0)},
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	url := "http://" + s.Addr().String() + "/"

	sc, err := LoadScenarios(filepath.Join("scenarios", "websocket-1s.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range sc {
		t.Run(sc.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			lr, err := GustLoader{}.Load(ctx, url, sc)
			if err != nil {
				t.Fatal(err)
			}
			if lr.Errors != 0 {
				t.Errorf("%d errors", lr.Errors)
			}
			switch sc.WebSocket.Kind {
			case WSEcho:
				if lr.Requests == 0 || lr.RPS <= 0 {
					t.Errorf("echo: %d messages at %.0f/s", lr.Requests, lr.RPS)
				}
			case WSHold:
				if lr.Requests != 0 {
					t.Errorf("hold: %d messages, want none", lr.Requests)
				}
				if !lr.Hold || lr.Held != int64(sc.Connections) || lr.P99 >= 0 {
					t.Errorf("hold: hold %v, %d held of %d, p99 %v; want all held and no request latency", lr.Hold, lr.Held, sc.Connections, lr.P99)
				}
			case WSBroadcast:
				// The sender sends 100/s for duration-3s = 1 s: about 100
				// messages, each delivered to every receiver.
				if min := int64(50 * sc.Connections); lr.Requests < min {
					t.Errorf("broadcast: %d deliveries, want at least %d", lr.Requests, min)
				}
				if lr.P99 <= 0 {
					t.Errorf("broadcast: no sender latency (p99 %v)", lr.P99)
				}
			}
		})
	}
}
