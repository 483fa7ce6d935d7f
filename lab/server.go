package lab

import (
	"fmt"
	"strings"
	"time"
)

// Server is one server under test: a command gust bench starts and stops
// for every cell, or a target that is already running.
type Server struct {
	// Name identifies the server in reports.
	Name string `json:"name"`
	// Command is a shell command line with placeholders: {addr} (host:port
	// to listen on), {debug} (host:port for /debug/vars and /debug/pprof/),
	// {delay} (the handler delay, e.g. "2s") and {mode} (what to serve:
	// http1, tls, tls-no-resume, h2, h2c, h3 or files; see Scenario.Mode) and
	// {root} (the directory of a file scenario's file, else empty). It runs under sh -c
	// behind exec, so the started process is the server and its PID is
	// sampled; a compound command should exec the server itself.
	Command string `json:"command,omitempty"`
	// URL, instead of Command, names a server that is already running.
	// It is loaded but not sampled (no PID), and not restarted.
	URL string `json:"url,omitempty"`
	// Missing, if set, says why this server cannot run (a binary that was
	// not built); each of its cells records it as the error.
	Missing string `json:"-"`
	// OnRequest: a built-in that runs only when --servers names it (the
	// gust engine's dispatch modes side by side), not in the default matrix.
	OnRequest bool `json:"-"`
	// WebSocketOnly: the server is run only in WebSocket scenarios (a
	// WebSocket library's peer), not counted in the others.
	WebSocketOnly bool `json:"-"`
	// HTTP3Only: the server is run only in HTTP/3 scenarios (the quic-go
	// peer, which listens on UDP alone), not counted in the others.
	HTTP3Only bool `json:"-"`
	// Modes holds, for each mode beyond plain HTTP/1.1 it serves (see
	// Scenario.Mode), the flags appended to Command. Nil for a --server
	// command, which says the mode with a {mode} placeholder instead.
	Modes map[string]string `json:"-"`
	// Unserved lists the modes a server whose command takes {mode}
	// cannot serve (nginx has no WebSocket endpoint): it has no cell in
	// their scenarios.
	Unserved []string `json:"-"`
	// Probe, if set, says why the binary cannot take a mode's flags (a gust
	// serve that lacks them) before a cell needs them.
	Probe func(flags string) error `json:"-"`
	// Compress is the flags of a compression cell, {json} standing for
	// the body's size (compress.go); empty: it cannot serve one.
	Compress string `json:"-"`
}

// ParseServerFlag parses NAME=VALUE as given to --server or --target.
func ParseServerFlag(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return "", "", fmt.Errorf("bad %q: want NAME=VALUE", s)
	}
	return name, value, nil
}

// commandLine fills in the placeholders of a server's command, with the
// flags or {mode} that mode needs (see Scenario.Mode).
func (s Server) commandLine(addr, debug string, delay time.Duration, mode, root string) (string, error) {
	command, err := s.modeCommand(mode)
	if err != nil {
		return "", err
	}
	if delay > 0 && !strings.Contains(command, "{delay}") {
		// nginx, or a --server without the placeholder: it would answer at
		// once, far above the cell's ideal rate, and read as a result.
		return "", fmt.Errorf("%s cannot wait before answering (its command has no {delay})", s.Name)
	}
	if root != "" {
		root = ShellQuote(root)
	}
	return strings.NewReplacer("{addr}", addr, "{debug}", debug, "{delay}", delay.String(), "{mode}", mode, "{root}", root).Replace(command), nil
}

// hasDebug reports whether the server exposes /debug/vars (its command takes {debug}).
func (s Server) hasDebug() bool { return strings.Contains(s.Command, "{debug}") }

// ShellQuote quotes s for sh when it holds anything but safe characters.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// BuiltinServers returns the servers of the default matrix given the
// directory holding the peer binaries and the path of gust itself.
func BuiltinServers(peerDir, gust string) []Server {
	peer := func(name string, modes map[string]string) Server {
		return Server{Name: name, Command: ShellQuote(peerDir+"/"+name) + " -addr {addr} -delay {delay} -debug-addr {debug}", Modes: modes, Compress: compressFlags[name]}
	}
	wsPeer := func(name string) Server {
		s := peer(name, wsPeerModeFlags)
		s.WebSocketOnly = true
		return s
	}
	h3Peer := peer("quicgo", quicgoModeFlags)
	h3Peer.HTTP3Only = true
	g := ShellQuote(gust) + " serve --addr {addr} --delay {delay} --debug-addr {debug}"
	probe := probeGustServe(gust)
	return []Server{
		peer("fasthttp", fasthttpModeFlags),
		peer("nethttp", nethttpModeFlags),
		peer("nbio", nbioModeFlags),
		{Name: "gust-native", Command: g, Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags},
		{Name: "gust-adapter", Command: g + " --api nethttp", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags},
		wsPeer("gorillaws"),
		wsPeer("coderws"),
		wsPeer("gobwasws"),
		h3Peer,
		nginxServer(),
		// The dispatch modes by name (gust-native and gust-adapter run the
		// default, auto), for --servers gust-auto,gust-pooled,gust-inline.
		// gust-inline refuses a delay: its delay cells say so.
		{Name: "gust-auto", Command: g + " --mode auto", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
		{Name: "gust-auto-adapter", Command: g + " --mode auto --api nethttp", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
		{Name: "gust-pooled", Command: g + " --mode pooled", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
		{Name: "gust-pooled-adapter", Command: g + " --mode pooled --api nethttp", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
		{Name: "gust-inline", Command: g + " --mode inline", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
		// gust-inline with its loops waiting in epoll_wait on their own
		// threads rather than parked in the runtime's poller
		// (server.Config.LoopsOwnThreads), for --servers gust-own.
		{Name: "gust-own", Command: g + " --mode inline --own-threads", Modes: gustModeFlags, Probe: probe, Compress: gustCompressFlags, OnRequest: true},
	}
}
