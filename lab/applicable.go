package lab

import (
	"fmt"
	"slices"
	"strings"
)

// Which servers have a cell in which scenarios: the cells a server
// cannot serve by design are not run, and gust bench says so once.

// runs reports whether srv has a cell in sc: a WebSocket library's peer
// has none outside the WebSocket scenarios, and a server without a
// WebSocket endpoint (fasthttp, net/http, nginx) none in them.
func runs(srv Server, sc Scenario) bool {
	if sc.WebSocket == nil {
		return !srv.WebSocketOnly
	}
	return srv.serves(ModeWS)
}

// NotApplicable says, a line per reason, which servers have no cell in
// which scenarios by design (see runs): WebSocket-only peers in HTTP
// scenarios, servers without a WebSocket endpoint in WebSocket ones. Such
// cells are not run and not counted as failed.
func NotApplicable(servers []Server, scenarios []Scenario) []string {
	type skip struct{ servers, scenarios []string }
	reasons := []string{"they serve only WebSocket", "they serve no WebSocket"}
	skips := make([]skip, len(reasons))
	for _, sc := range scenarios {
		for _, s := range servers {
			if runs(s, sc) {
				continue
			}
			k := &skips[0]
			if sc.WebSocket != nil {
				k = &skips[1]
			}
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
				strings.Join(k.servers, ", "), strings.Join(k.scenarios, ", "), reasons[i]))
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
