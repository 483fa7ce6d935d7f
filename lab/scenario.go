package lab

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Scenario is one load shape of the matrix. Zero values: keep-alive on,
// pipeline 1, no handler delay.
type Scenario struct {
	// Name identifies the scenario in reports, e.g. "keepalive-2000".
	Name string `json:"name"`
	// Connections is the number of concurrent connections.
	Connections int `json:"connections"`
	// KeepAlive, when false, opens a new TCP connection per request. Nil means true.
	KeepAlive *bool `json:"keepalive,omitempty"`
	// Pipeline is how many requests each connection keeps in flight (0 means 1).
	Pipeline int `json:"pipeline,omitempty"`
	// Delay is how long each server's handler waits before answering.
	Delay Duration `json:"delay,omitempty"`
	// Duration is the measured time.
	Duration Duration `json:"duration"`
	// Warmup is load sent before measuring (measurement also waits until
	// every connection is up).
	Warmup Duration `json:"warmup,omitempty"`
	// Attack, if set, is hostile traffic sent beside the load for the
	// whole cell (slow or endless requests, idle connections).
	Attack *Attack `json:"attack,omitempty"`
	// TLS, if set, runs the scenario over TLS (see Mode).
	TLS *TLS `json:"tls,omitempty"`
	// HTTP2, if set, runs it over HTTP/2: h2 with TLS, h2c without.
	HTTP2 *HTTP2 `json:"http2,omitempty"`
	// HTTP3, if set, runs it over HTTP/3 on QUIC, always encrypted (h3.go).
	HTTP3 *HTTP3 `json:"http3,omitempty"`
	// WebSocket, if set, makes it a WebSocket scenario (websocket.go).
	WebSocket *WebSocket `json:"websocket,omitempty"`
	// Capacity, if set, makes the cell a capacity search: the highest
	// open-model rate the server sustains under an objective (capacity.go).
	Capacity *CapacitySearch `json:"capacity,omitempty"`
	// Compress, if set, makes every response a compressed JSON document
	// (compress.go).
	Compress *Compress `json:"compress,omitempty"`
	// File, if set, makes every request fetch a file of this size, which
	// the servers serve from a directory (files.go).
	File *File `json:"file,omitempty"`
}

// KeepAliveOn reports whether connections are reused.
func (s Scenario) KeepAliveOn() bool { return s.KeepAlive == nil || *s.KeepAlive }

// PipelineDepth returns the pipeline depth, at least 1.
func (s Scenario) PipelineDepth() int { return max(s.Pipeline, 1) }

// IdealRPS is Little's law for a handler that waits Delay: Connections
// times the requests in flight on each (pipeline depth or HTTP/2 or HTTP/3
// streams)
// are answered every Delay. It is 0 without a delay.
func (s Scenario) IdealRPS() float64 {
	if s.Delay <= 0 {
		return 0
	}
	return float64(s.Connections*max(s.PipelineDepth(), s.Streams())) / time.Duration(s.Delay).Seconds()
}

// Group names the family a scenario belongs to, the scenarios that differ
// only in their number of connections: charts draw a group against connections.
func (s Scenario) Group() string {
	if s.WebSocket != nil {
		return s.wsGroup()
	}
	g := "keep-alive"
	if !s.KeepAliveOn() {
		g = "new connection per request"
	}
	if s.File != nil {
		g += ", " + s.File.fileGroup()
	}
	if p := s.protoGroup(); s.HTTP2 != nil || s.HTTP3 != nil {
		g = p
	} else if p != "" {
		g += " " + p
	}
	if s.PipelineDepth() > 1 {
		g += fmt.Sprintf(", pipelined %d deep", s.PipelineDepth())
	}
	if s.Delay > 0 {
		g += fmt.Sprintf(", handler waits %s", time.Duration(s.Delay))
	}
	if s.Compress != nil {
		g += s.Compress.group()
	}
	if s.Attack != nil {
		g += fmt.Sprintf(", beside %d %s connections", s.Attack.Connections, s.Attack.Kind)
		if s.Attack.Sink {
			g += " sent elsewhere (control)"
		}
	}
	if s.Capacity != nil {
		g += ", sustainable at " + s.Capacity.label()
	}
	return g
}

func (s Scenario) validate() error {
	switch {
	case s.Name == "":
		return errors.New("a scenario has no name")
	case s.Connections < 1:
		return fmt.Errorf("scenario %q: connections must be at least 1, got %d", s.Name, s.Connections)
	case s.Pipeline < 0 || s.Pipeline > 1024:
		return fmt.Errorf("scenario %q: pipeline must be between 1 and 1024, got %d", s.Name, s.Pipeline)
	case !s.KeepAliveOn() && s.PipelineDepth() > 1:
		return fmt.Errorf("scenario %q: pipelining needs keep-alive", s.Name)
	case s.Duration <= 0:
		return fmt.Errorf("scenario %q: give a positive duration, e.g. \"10s\"", s.Name)
	case s.Delay < 0 || s.Warmup < 0:
		return fmt.Errorf("scenario %q: delay and warmup must not be negative", s.Name)
	case s.Attack != nil:
		if err := s.Attack.validate(s.Name); err != nil {
			return err
		}
	case s.Capacity != nil:
		if err := s.Capacity.validate(s.Name); err != nil {
			return err
		}
	case s.File != nil:
		if err := s.File.validate(s.Name); err != nil {
			return err
		}
		if s.TLS != nil || s.HTTP2 != nil || s.Delay > 0 {
			return fmt.Errorf("scenario %q: file scenarios are plain HTTP/1.1 without a delay (no tls, http2 or delay yet)", s.Name)
		}
	}
	if err := s.validateWebSocket(); err != nil {
		return err
	}
	if s.Compress != nil {
		if err := s.Compress.validate(s.Name); err != nil {
			return err
		}
	}
	return s.validateProto()
}

// Duration is a time.Duration written in JSON as a string such as "2s".
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string such as "500ms" or "2s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("durations are strings such as \"2s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q: %v", s, err)
	}
	*d = Duration(v)
	return nil
}

// Matrix is a scenario file: the scenarios every server runs, in order.
type Matrix struct {
	Scenarios []Scenario `json:"scenarios"`
}

//go:embed scenarios/default.json
var defaultMatrix []byte

//go:embed scenarios/quick.json
var quickMatrix []byte

// DefaultScenarios returns the embedded default matrix, or with quick the
// reduced one that finishes in under a minute.
func DefaultScenarios(quick bool) []Scenario {
	data := defaultMatrix
	if quick {
		data = quickMatrix
	}
	sc, err := ParseScenarios(data)
	if err != nil {
		panic("lab: embedded scenarios: " + err.Error())
	}
	return sc
}

// LoadScenarios reads a scenario file (see ParseScenarios).
func LoadScenarios(path string) ([]Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	sc, err := ParseScenarios(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return sc, nil
}

// ParseScenarios parses a scenario file: {"scenarios": [{"name": ...,
// "connections": ..., "duration": "10s", ...}]}. Unknown fields, duplicate
// names and impossible values are errors.
func ParseScenarios(data []byte) ([]Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Matrix
	if err := dec.Decode(&m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		return nil, err
	}
	if len(m.Scenarios) == 0 {
		return nil, errors.New(`no scenarios: the file needs {"scenarios": [...]}`)
	}
	seen := map[string]bool{}
	for _, s := range m.Scenarios {
		if err := s.validate(); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("scenario %q appears twice", s.Name)
		}
		seen[s.Name] = true
	}
	return m.Scenarios, nil
}
