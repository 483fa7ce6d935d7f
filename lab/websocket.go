package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// WebSocket makes a scenario a WebSocket one (lab/scenarios/websocket.json):
// every server is asked for its /ws and /ws/broadcast paths (gust serve's
// and the peers' alike), and the in-process gust loader drives them as
// gust load ws:// does.
type WebSocket struct {
	// Kind is what the connections do:
	//   "echo"       each keeps one message of Size bytes in flight on /ws,
	//                so req/s is messages/s and CPU per request per message;
	//   "hold"       each upgrades and holds, a ping every 30 s: the cell's
	//                RSS per connection is the idle cost (errors count the
	//                connections not held at the end);
	//   "broadcast"  Connections receivers hold on /ws/broadcast while one
	//                more connection sends Rate messages/s of Size bytes
	//                there: req/s is deliveries/s (the receivers' messages),
	//                CPU per request per delivery, latency the sender's own
	//                copy coming back (it is one of the receivers).
	Kind string `json:"kind"`
	// Size is a message's payload in bytes (default 64).
	Size int `json:"size,omitempty"`
	// Rate is the broadcast sender's messages per second (default 100).
	Rate float64 `json:"rate,omitempty"`
}

// ModeWS is Scenario.Mode for a WebSocket scenario: plain HTTP/1.1 with
// the upgrade to WebSocket on /ws and /ws/broadcast.
const ModeWS = "ws"

// WebSocket kinds.
const (
	WSEcho      = "echo"
	WSHold      = "hold"
	WSBroadcast = "broadcast"
)

// wsPing is how often held connections ping in hold and broadcast cells.
const wsPing = 30 * time.Second

func (w *WebSocket) size() int {
	if w.Size == 0 {
		return load.DefaultWebSocketSize
	}
	return w.Size
}

func (w *WebSocket) rate() float64 {
	if w.Rate == 0 {
		return 100
	}
	return w.Rate
}

// validateWebSocket refuses what a WebSocket scenario cannot take.
func (s Scenario) validateWebSocket() error {
	w := s.WebSocket
	switch {
	case w == nil:
		return nil
	case w.Kind != WSEcho && w.Kind != WSHold && w.Kind != WSBroadcast:
		return fmt.Errorf("scenario %q: websocket.kind must be echo, hold or broadcast, got %q", s.Name, w.Kind)
	case s.TLS != nil || s.HTTP2 != nil || s.Attack != nil || s.Delay != 0 || s.Pipeline > 1 || !s.KeepAliveOn():
		return fmt.Errorf("scenario %q: a websocket scenario takes no tls, http2, attack, delay, pipeline or keepalive", s.Name)
	case w.Size < 0 || w.Size > load.MaxWebSocketMessage:
		return fmt.Errorf("scenario %q: websocket.size must be between 1 and %d, got %d", s.Name, load.MaxWebSocketMessage, w.Size)
	case w.Rate < 0 || (w.Rate > 0 && w.Kind != WSBroadcast):
		return fmt.Errorf("scenario %q: websocket.rate is the broadcast sender's, and positive", s.Name)
	case w.Kind == WSBroadcast && time.Duration(s.Duration) < 4*time.Second:
		return fmt.Errorf("scenario %q: a broadcast needs a duration of 4s or more (the sender runs inside the receivers' window)", s.Name)
	}
	return nil
}

// wsGroup is what Group says of a WebSocket scenario.
func (s Scenario) wsGroup() string {
	w := s.WebSocket
	switch w.Kind {
	case WSHold:
		return "WebSocket, idle held"
	case WSBroadcast:
		return fmt.Sprintf("WebSocket broadcast to the connections, %d-byte messages at %g/s from one sender", w.size(), w.rate())
	}
	return fmt.Sprintf("WebSocket echo, %d-byte messages", w.size())
}

// wsURL turns a cell's http://host/ URL into the ws:// URL of path.
func wsURL(url, path string) string {
	return "ws://" + strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/") + path
}

// loadWebSocket runs a WebSocket scenario with gust load's engine.
func (g GustLoader) loadWebSocket(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	w := sc.WebSocket
	cfg := load.Config{
		URL:         wsURL(url, "/ws"),
		Connections: sc.Connections,
		Duration:    time.Duration(sc.Duration),
		Warmup:      time.Duration(sc.Warmup),
		Timeout:     loadTimeout(sc),
		Loops:       g.Loops,
		WebSocket:   load.WebSocketConfig{Size: w.size()},
	}
	switch w.Kind {
	case WSHold:
		cfg.WebSocket = load.WebSocketConfig{Hold: true, Ping: wsPing}
		res, err := load.Run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		lr := gustResult(res)
		lr.Errors += int64(sc.Connections) - res.WebSocket.Held
		lr.Hold, lr.Held = true, res.WebSocket.Held
		lr.P50, lr.P99, lr.P999 = -1, -1, -1 // pings, not requests: no request latency
		return lr, nil
	case WSBroadcast:
		cfg.URL = wsURL(url, "/ws/broadcast")
		return g.broadcast(ctx, cfg, w)
	}
	res, err := load.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return gustResult(res), nil
}

// broadcast runs cfg's connections as held receivers on cfg.URL
// (/ws/broadcast) and, once they are measured, one sender inside their
// window.
func (g GustLoader) broadcast(ctx context.Context, cfg load.Config, w *WebSocket) (*LoadResult, error) {
	recv := cfg
	recv.WebSocket = load.WebSocketConfig{Hold: true, Ping: wsPing}
	measuring := make(chan struct{})
	var once sync.Once
	recv.Progress = func(load.Progress) { once.Do(func() { close(measuring) }) }
	type outcome struct {
		res *result.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := load.Run(ctx, recv)
		done <- outcome{res, err}
	}()
	var sendRes *result.Result
	var sendErr error
	select {
	case <-measuring:
		send := cfg
		send.Connections, send.Warmup = 1, 0
		send.Rate = w.rate()
		// The sender's own copies come back after every receiver's: keep
		// enough in flight that the rate holds meanwhile.
		send.WebSocket = load.WebSocketConfig{Size: w.size(), Inflight: 1024}
		send.Duration = cfg.Duration - 3*time.Second // the rest of the window takes the backlog
		sendRes, sendErr = load.Run(ctx, send)
	case o := <-done:
		if o.err == nil {
			o.err = errors.New("the receivers' run ended before it measured")
		}
		return nil, fmt.Errorf("broadcast receivers: %w", o.err)
	}
	o := <-done
	if o.err != nil {
		return nil, fmt.Errorf("broadcast receivers: %w", o.err)
	}
	if sendErr != nil {
		return nil, fmt.Errorf("broadcast sender: %w", sendErr)
	}
	rr := o.res
	lr := gustResult(sendRes) // latency: the sender's copies
	got := rr.WebSocket.MessagesReceived
	lr.Start, lr.Duration, lr.Requests = rr.Start, rr.Duration, got
	lr.RPS = float64(got) / rr.Duration.Seconds()
	lr.Errors += rr.ErrorCount() + int64(cfg.Connections) - rr.WebSocket.Held
	return lr, nil
}
