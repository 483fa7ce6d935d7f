package lab

import (
	"fmt"
	"slices"
	"strings"
)

// Which servers have a cell in which scenarios: the cells a server
// cannot serve by design are not run, and gust bench says so once.

// The reasons a server has no cell in a scenario, in the order gust
// bench prints them.
var notApplicableReasons = []string{
	"they serve only WebSocket",
	"they serve no WebSocket",
	"they serve only HTTP/3",
	"they serve no HTTP/3",
}

// whyNot says which of notApplicableReasons keeps srv out of sc, by its
// index, or -1 when srv has a cell in sc: a WebSocket library's peer has
// none outside the WebSocket scenarios, the HTTP/3 peer none outside the
// HTTP/3 ones, and a server without a WebSocket endpoint (fasthttp,
// net/http, nginx) or without HTTP/3 (all but gust serve and the quic-go
// peer) none in them.
func whyNot(srv Server, sc Scenario) int {
	switch {
	case sc.WebSocket == nil && srv.WebSocketOnly:
		return 0
	case sc.HTTP3 == nil && srv.HTTP3Only:
		return 2
	case sc.WebSocket != nil && !srv.serves(ModeWS):
		return 1
	case sc.HTTP3 != nil && !srv.serves(ModeH3):
		return 3
	}
	return -1
}

// runs reports whether srv has a cell in sc (see whyNot).
func runs(srv Server, sc Scenario) bool { return whyNot(srv, sc) < 0 }

// NotApplicable says, a line per reason, which servers have no cell in
// which scenarios by design (see whyNot): WebSocket-only peers in HTTP
// scenarios, servers without a WebSocket endpoint in WebSocket ones, and
// likewise for HTTP/3. Such cells are not run and not counted as failed.
func NotApplicable(servers []Server, scenarios []Scenario) []string {
	type skip struct{ servers, scenarios []string }
	skips := make([]skip, len(notApplicableReasons))
	for _, sc := range scenarios {
		for _, s := range servers {
			i := whyNot(s, sc)
			if i < 0 {
				continue
			}
			k := &skips[i]
			if !slices.Contains(k.servers, s.Name) {
				k.servers = append(k.servers, s.Name)
			}
			if !slices.Contains(k.scenarios, sc.Name) {
				k.scenarios = append(k.scenarios, sc.Name)
			}
		}
	}
	var lines []string
	for i, k := range skips {
		if len(k.servers) > 0 {
			lines = append(lines, fmt.Sprintf("not applicable: %s in %s (%s)",
				strings.Join(k.servers, ", "), strings.Join(k.scenarios, ", "), notApplicableReasons[i]))
		}
	}
	return lines
}

// serves reports whether srv can serve mode: a built-in says so in its
// Modes, or in Unserved when its command takes {mode}; a --server
// command is taken at its word.
func (s Server) serves(mode string) bool {
	if s.Modes != nil {
		_, ok := s.Modes[mode]
		return ok
	}
	return !slices.Contains(s.Unserved, mode)
}
