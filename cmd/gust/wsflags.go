package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
)

// wsFlags are gust load's WebSocket flags, for ws:// and wss:// URLs:
// the messages (--ws-size, --ws-text, --ws-inflight, --ws-deflate), or
// holding the connections (--ws-hold, --ws-ping).
type wsFlags struct {
	size     int
	text     bool
	inflight int
	deflate  bool
	hold     bool
	ping     time.Duration
	changed  func(name string) bool // the flag set's Changed
}

// wsFlagNames are the flags, in the order an error names the first given.
var wsFlagNames = []string{"ws-size", "ws-text", "ws-inflight", "ws-deflate", "ws-hold", "ws-ping"}

func addWSFlags(fl *pflag.FlagSet, f *wsFlags) {
	fl.IntVar(&f.size, "ws-size", load.DefaultWebSocketSize, "ws:// and wss://: each message's payload in bytes (-d or -D give the payload instead)")
	fl.BoolVar(&f.text, "ws-text", false, "ws:// and wss://: send text frames (binary by default)")
	fl.IntVar(&f.inflight, "ws-inflight", 1, "ws:// and wss://: messages in flight per connection; each message the server sends back completes the oldest")
	fl.BoolVar(&f.deflate, "ws-deflate", false, "ws:// and wss://: offer permessage-deflate (no context takeover)")
	fl.BoolVar(&f.hold, "ws-hold", false, "ws:// and wss://: connect, upgrade and hold, sending no messages but pings; the report counts the connections still open (held)")
	fl.DurationVar(&f.ping, "ws-ping", load.DefaultWebSocketPing, "with --ws-hold, how often each connection pings")
	f.changed = fl.Changed
}

// apply puts the flags into cfg, for target, the run's URL. requests is
// -n, rate the total rate (--rate, or -q times -c), and data whether -d
// or -D gave a payload.
func (f *wsFlags) apply(cfg *load.Config, target string, requests int64, rate float64, data bool) error {
	if !isWebSocketTarget(target) {
		for _, name := range wsFlagNames {
			if f.changed(name) {
				return fmt.Errorf("--%s needs a ws:// or wss:// URL", name)
			}
		}
		return nil
	}
	switch {
	case f.size < 1 || f.size > load.MaxWebSocketMessage:
		return fmt.Errorf("--ws-size must be between 1 and %d bytes, got %d", load.MaxWebSocketMessage, f.size)
	case f.inflight < 1 || f.inflight > 1024:
		return fmt.Errorf("--ws-inflight must be between 1 and 1024, got %d", f.inflight)
	case f.ping <= 0:
		return fmt.Errorf("--ws-ping must be positive, got %s", f.ping)
	case f.changed("ws-size") && data:
		return errors.New("give either --ws-size or -d/-D (the message itself), not both")
	case f.changed("ws-ping") && !f.hold:
		return errors.New("--ws-ping is the ping interval of held connections: add --ws-hold, or drop --ws-ping")
	case f.hold && rate > 0:
		return errors.New("--ws-hold sends no messages, so it takes no --rate or -q: drop one")
	case f.hold && requests > 0:
		return errors.New("--ws-hold sends no messages: give a duration (-z), not -n")
	case f.hold && (f.changed("ws-inflight") || f.changed("ws-size") || f.text || data):
		return errors.New("--ws-hold sends no messages: drop --ws-size, --ws-text, --ws-inflight, -d and -D")
	}
	cfg.WebSocket = load.WebSocketConfig{Size: f.size, Text: f.text, Inflight: f.inflight, Deflate: f.deflate, Hold: f.hold}
	if f.hold {
		cfg.WebSocket.Ping = f.ping
	}
	return nil
}

// isWebSocketTarget reports whether target is a ws:// or wss:// URL.
func isWebSocketTarget(target string) bool {
	u, err := url.Parse(target)
	return err == nil && (strings.EqualFold(u.Scheme, "ws") || strings.EqualFold(u.Scheme, "wss"))
}
