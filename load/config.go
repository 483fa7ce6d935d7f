package load

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/gust-http/gust/result"

	"github.com/gust-http/gust/internal/http1"
)

// Config describes one load run. The zero value of every optional field is
// a sensible default; URL and one of Requests or Duration are required.
type Config struct {
	// URL is the target, http://host[:port]/path?query or https://...
	// (see TLS), or ws:// and wss:// for WebSocket (see WebSocket).
	URL string
	// Method is the request method; "" means GET.
	Method string
	// Header holds extra request header fields, in order. A Host field
	// overrides the one derived from URL.
	Header [][2]string
	// Body is sent with every request.
	Body []byte

	// Connections is the number of concurrent connections (default 50).
	Connections int
	// ConnectRate, if positive, opens connections (first ones and
	// reconnects) at this many per second in total, evenly spaced
	// (ramp.go); 0 opens them as fast as the loops can.
	ConnectRate float64
	// SourceAddrs, if set, binds each connection to the next of these
	// local addresses in turn, so that one target takes more connections
	// than one source address has ephemeral ports (about 28,000); they
	// must be of the target's family.
	SourceAddrs []netip.Addr
	// Requests stops the run after this many responses (0: no limit).
	Requests int64
	// Duration stops the run after this long (0: no limit). When both
	// Requests and Duration are zero, Run returns an error.
	Duration time.Duration
	// Warmup runs the load for this long before measuring; nothing sent
	// during warmup is counted.
	Warmup time.Duration

	// Rate switches to the open model: requests per second in total on a
	// constant schedule, latency measured from each request's intended send
	// time. 0 means the closed model: as fast as the connections allow.
	Rate float64
	// Stages switch to the open model with a rate that changes: from 0,
	// the rate moves linearly to each stage's Target over its Duration
	// (schedule_stages.go), latency measured from each request's intended
	// send time. The run lasts the stages' sum: Duration must be zero or
	// that sum; Rate, Requests, Warmup, Speed, a Source and
	// DisableKeepAlive do not apply. Connections is the pool the run
	// starts with; see MaxConnections.
	Stages []Stage
	// MaxConnections, with Stages, lets the pool of Connections grow to
	// this many when a request comes due and no connection has room for
	// it; 0 keeps the pool at Connections.
	MaxConnections int
	// RampUp, in the closed model, opens the connections evenly over this
	// long (Connections/RampUp per second) and measures from the start,
	// so the timeline shows the load rising; ConnectRate, if also set,
	// paces only the reconnects (ramp.go).
	RampUp time.Duration
	// DisableKeepAlive opens a new TCP connection for every request.
	DisableKeepAlive bool
	// Pipeline is how many requests each connection keeps in flight (default 1).
	Pipeline int
	// HTTP2 speaks HTTP/2: with prior knowledge (h2c) to an http:// URL,
	// and to an https:// one by ALPN, offering "h2" unless TLS.NextProtos
	// says otherwise.
	// Pipeline and DisableKeepAlive do not apply; Streams does.
	HTTP2 bool
	// AutoProtocol (gust load --proto auto) offers "h2" and "http/1.1" by
	// ALPN to an https:// URL, unless TLS.NextProtos says otherwise, and
	// each connection speaks what the server picks: Streams applies to
	// the connections that get HTTP/2, Pipeline to those that get
	// HTTP/1.1 (or no ALPN answer). It needs https://, since only TLS can
	// negotiate, and excludes HTTP2 and DisableKeepAlive.
	AutoProtocol bool
	// HTTP3 speaks HTTP/3 (RFC 9114) over QUIC (RFC 9000) to an https://
	// URL, each connection on its own UDP socket, ALPN "h3": Streams
	// applies, Pipeline and DisableKeepAlive do not.
	HTTP3 bool
	// Streams is how many streams each HTTP/2 connection keeps in flight
	// (h2load's -m), never more than the server's
	// SETTINGS_MAX_CONCURRENT_STREAMS (default 1; at most MaxStreams).
	Streams int
	// Timeout bounds connecting and waiting for each response (default 20s).
	Timeout time.Duration

	// Loops is the number of event loops (default GOMAXPROCS, at most Connections).
	Loops int
	// OwnThreads makes each loop wait in epoll_wait on its own thread,
	// unseen by the Go scheduler, rather than in a system call the
	// scheduler hands its P off around (Linux). A loop that sleeps and
	// wakes often (an open-model rate, held connections pinged now and
	// then) then costs less CPU: 11 us of the generator's a WebSocket ping
	// and pong against 17 (docs/BENCHMARKS.md). Run raises GOMAXPROCS to
	// Loops + 1 if it is lower, for the goroutines beside the loops.
	OwnThreads bool
	// IntervalHistograms keeps each second's latency histogram, encoded, in
	// result.Result.Timeline (for HdrHistogram interval logs).
	IntervalHistograms bool
	// Progress, if set, is called about once a second from a single
	// goroutine with the state of the run so far.
	Progress func(Progress)
	// Live, if set, is called once a second from a single goroutine with
	// the run's cumulative measurements (live.go), and once more with the
	// final ones after the run. The Live, its maps and its histogram are
	// only valid during the call: copy what you keep.
	Live func(*Live)

	// Source, if set, supplies the requests instead of URL, Method, Header
	// and Body: a stream of serialized requests, each with its endpoint for
	// result.Result.Endpoints. URL then only names the server to connect to. The
	// run ends when the source is exhausted and the last response is in,
	// or earlier at Requests or Duration, so neither is required.
	// DisableKeepAlive cannot be used with a Source.
	//
	// Requests go out as fast as the connections allow (the closed model),
	// at a flat Rate, or at their recorded times scaled by Speed; with Rate
	// or Speed, latency is measured from each request's intended send time.
	Source Source
	// Speed, with a Source, sends each request at its SourceRequest.At
	// divided by Speed: 1 keeps the recorded pace, 2 is twice as fast.
	// 0 means not at recorded times; Speed and Rate exclude each other.
	Speed float64
	// SSE reads every response body as Server-Sent Events (as a
	// text/event-stream response is read anyway): its first event and the
	// gaps between events are timed (Result.Stream).
	SSE bool
	// Stream reads every response body as a stream: each piece that
	// arrives counts as an event of Result.Stream (a chunked or HTTP/2
	// body its server flushes piece by piece).
	Stream bool
	// RXStamps times what arrives on a plain TCP connection (Linux) by
	// the kernel's receive stamp (SO_TIMESTAMPNS) instead of when the
	// loop reads it: a loop busy with other connections reads a socket
	// late, and that wait is the generator's, not the server's. A read's
	// stamp is its last segment's.
	RXStamps bool
	// GRPC reads every response as a gRPC call's (the request, made by
	// the caller, a POST of length-prefixed messages over HTTP2): its
	// messages counted by their length prefixes and its grpc-status, from
	// the trailers or a trailers-only response's headers, counted by name
	// in Result.GRPC. It needs HTTP2.
	GRPC bool
	// GRPCStream says how GRPC's method streams: messages per call and
	// their interval on a client stream, timings of a server stream. The
	// zero value is a unary call.
	GRPCStream GRPCStream

	// Flow, if set, runs user journeys instead of the one request: each
	// connection is a virtual user (see FlowRun).
	Flow *FlowRun

	// Shard, if set, runs one of Shard.Count equal shares of the run the
	// rest of the Config describes: Connections, Requests and Rate are
	// divided, with remainders spread over the first shards, so that the
	// shares add up to the whole exactly. Duration and Warmup are every
	// shard's. The zero Shard runs the whole; a Source cannot be sharded
	// unless it has taken the shard's share itself (DataSource.Sharded).
	Shard result.Shard
	// TLS configures the handshakes of an https:// target; its zero value
	// verifies the server's certificate against the system's roots,
	// resumes sessions and offers ALPN "http/1.1". It is ignored for an
	// http:// target.
	TLS TLSConfig

	// WebSocket configures a ws:// or wss:// run: its messages, or holding
	// its connections. It must be zero for http:// and https:// URLs. In
	// a WebSocket run Body, if set, is every message's payload.
	WebSocket WebSocketConfig

	// StartAt, if not zero, is when the run begins: Run checks that the
	// target can be reached, then waits until StartAt before it opens the
	// run's connections, so that agents started at different times begin
	// together. A StartAt in the past begins at once.
	StartAt time.Time
}

// Progress is a snapshot of a run in progress.
type Progress struct {
	Elapsed  time.Duration // since measurement started
	Requests int64         // responses so far
	Errors   int64         // errors so far
	LastRPS  float64       // responses in the last full second
}

// Defaults for Config's zero values.
const (
	DefaultConnections = 50
	DefaultTimeout     = 20 * time.Second
	// MaxStreams bounds Config.Streams.
	MaxStreams = 1024
)

// Validation errors, one line each and saying what to do.
var (
	ErrNoStop = errors.New("give a number of requests (-n) or a duration (-z)")
	// ErrAutoNeedsTLS refuses AutoProtocol for an http:// URL: the
	// protocol is negotiated by TLS's ALPN, which plain TCP has not.
	ErrAutoNeedsTLS = errors.New("--proto auto needs an https:// URL (the protocol is chosen by TLS's ALPN); for h2c with prior knowledge use --http2")
)

// target is a Config resolved for the engine.
type target struct {
	hostPort string
	host     string  // for the Host header
	path     string  // request-target
	req      request // the run's one request
	head     bool    // HEAD requests: responses carry no body
	// idempotent: the method may be sent twice (RFC 9110 section 9.2.2),
	// so a request a closing keep-alive connection lost is sent again.
	idempotent bool
	tls        bool   // https: a TLS handshake before the first request
	sni        string // the server name for SNI and verification (https)
	ws         *wsRun // ws:// and wss://: the WebSocket run's handshake and message; nil for HTTP
}

func (c *Config) withDefaults() Config {
	cfg := *c
	if cfg.Method == "" {
		cfg.Method = "GET"
	}
	if cfg.Connections == 0 {
		cfg.Connections = DefaultConnections
	}
	if cfg.Pipeline == 0 {
		cfg.Pipeline = 1
	}
	if cfg.Streams == 0 && cfg.multiplexes() {
		cfg.Streams = 1
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Loops == 0 {
		cfg.Loops = runtime.GOMAXPROCS(0)
	}
	if cfg.Loops > cfg.Connections {
		cfg.Loops = cfg.Connections
	}
	if isWebSocketURL(cfg.URL) {
		cfg.WebSocket = cfg.WebSocket.withDefaults()
	}
	if len(cfg.Stages) > 0 && cfg.Duration == 0 {
		cfg.Duration = stagesDuration(cfg.Stages)
	}
	return cfg
}

// speaksHTTP2 reports whether any connection of the run may speak HTTP/2:
// all of them with HTTP2, those the server gives h2 with AutoProtocol.
func (c *Config) speaksHTTP2() bool { return c.HTTP2 || c.AutoProtocol }

// multiplexes reports whether connections of the run may carry requests
// on streams (HTTP/2, HTTP/3), so that Streams applies.
func (c *Config) multiplexes() bool { return c.speaksHTTP2() || c.HTTP3 }

// validate checks a defaulted Config and resolves its target.
func (c *Config) validate() (*target, error) {
	if c.Flow != nil {
		if err := c.checkFlowRun(); err != nil {
			return nil, err
		}
	}
	if len(c.Stages) > 0 {
		if err := c.checkStagesRun(); err != nil {
			return nil, err
		}
	}
	switch {
	case c.Connections < 0:
		return nil, fmt.Errorf("connections must be positive, got %d", c.Connections)
	case c.Requests < 0:
		return nil, fmt.Errorf("requests must not be negative, got %d", c.Requests)
	case c.Duration < 0:
		return nil, fmt.Errorf("duration must not be negative, got %s", c.Duration)
	case c.Warmup < 0:
		return nil, fmt.Errorf("warmup must not be negative, got %s", c.Warmup)
	case c.Requests == 0 && c.Duration == 0 && (c.Source == nil || pickable(c.Source)) && c.Flow == nil:
		return nil, ErrNoStop
	case c.Speed < 0:
		return nil, fmt.Errorf("speed must not be negative, got %g", c.Speed)
	case c.Speed > 0 && c.Source == nil:
		return nil, errors.New("speed needs a Source: it scales recorded times")
	case c.Speed > 0 && c.Rate > 0:
		return nil, errors.New("give either a rate or a speed, not both")
	case c.Source != nil && c.DisableKeepAlive:
		return nil, errors.New("keep-alive cannot be disabled with a Source")
	case c.Rate < 0:
		return nil, fmt.Errorf("rate must not be negative, got %g", c.Rate)
	case c.ConnectRate < 0:
		return nil, fmt.Errorf("connect rate must not be negative, got %g", c.ConnectRate)
	case c.RampUp < 0:
		return nil, fmt.Errorf("ramp-up must not be negative, got %s", c.RampUp)
	case c.RampUp > 0 && (c.Rate > 0 || len(c.Stages) > 0 || c.Source != nil && !pickable(c.Source)):
		return nil, errors.New("--ramp-up is for the closed model: the open model ramps its rate with --stages")
	case c.MaxConnections != 0 && len(c.Stages) == 0:
		return nil, errors.New("--max-connections grows the pool of a --stages run: give --stages, or size -c")
	case c.MaxConnections != 0 && c.MaxConnections < c.Connections:
		return nil, fmt.Errorf("--max-connections %d is below -c %d: the pool starts at -c and grows to it", c.MaxConnections, c.Connections)
	case c.Pipeline < 1 || c.Pipeline > 1024:
		return nil, fmt.Errorf("pipeline must be between 1 and 1024, got %d", c.Pipeline)
	case c.Timeout < 0:
		return nil, fmt.Errorf("timeout must be positive, got %s", c.Timeout)
	case c.Loops < 1:
		return nil, fmt.Errorf("loops must be positive, got %d", c.Loops)
	case c.DisableKeepAlive && c.Pipeline > 1:
		return nil, errors.New("pipelining needs keep-alive: drop --pipeline or --disable-keepalive")
	case c.HTTP2 && c.AutoProtocol:
		return nil, errors.New("give either HTTP2 (h2 alone) or AutoProtocol (h2 or http/1.1, as the server picks), not both")
	case c.AutoProtocol && c.DisableKeepAlive:
		return nil, errors.New("HTTP/2 keeps its connections, so --proto auto does too: drop --disable-keepalive")
	case c.HTTP3 && (c.HTTP2 || c.AutoProtocol):
		return nil, errors.New("give one protocol: HTTP3 does not mix with HTTP2 or AutoProtocol")
	case c.HTTP3 && c.Pipeline > 1:
		return nil, errors.New("HTTP/3 multiplexes instead of pipelining: use -m (streams per connection), not --pipeline")
	case c.HTTP3 && c.DisableKeepAlive:
		return nil, errors.New("HTTP/3 keeps its connections: drop --disable-keepalive")
	case c.HTTP3 && (c.GRPC || c.SSE || c.Stream || c.Flow != nil):
		return nil, errors.New("HTTP/3 runs send requests and read whole responses: gRPC, streamed responses and flows need HTTP/1.1 or HTTP/2")
	case c.Streams != 0 && !c.multiplexes():
		return nil, errors.New("streams per connection need HTTP/2: add --http2, or use --pipeline for HTTP/1.1")
	case c.multiplexes() && (c.Streams < 1 || c.Streams > MaxStreams):
		return nil, fmt.Errorf("streams must be between 1 and %d, got %d", MaxStreams, c.Streams)
	case c.HTTP2 && c.Pipeline > 1:
		return nil, errors.New("HTTP/2 multiplexes instead of pipelining: use -m (streams per connection), not --pipeline")
	case c.HTTP2 && c.DisableKeepAlive:
		return nil, errors.New("HTTP/2 keeps its connections: drop --disable-keepalive")
	case c.GRPC && !c.HTTP2:
		return nil, errors.New("gRPC calls need HTTP2 (h2c for http://, h2 for https://)")
	case c.GRPCStream.check(c.GRPC) != nil:
		return nil, c.GRPCStream.check(c.GRPC)
	}
	return resolveTarget(c)
}

func resolveTarget(c *Config) (*target, error) {
	if !strings.Contains(c.URL, "://") {
		return nil, fmt.Errorf("bad URL %q: missing scheme, try http://%s", c.URL, c.URL)
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %v", c.URL, http1.UnwrapURLError(err))
	}
	if defaultPort[u.Scheme] == "" {
		return nil, fmt.Errorf("bad URL %q: scheme %q is not supported, use http://, https://, ws:// or wss://", c.URL, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("bad URL %q: missing host", c.URL)
	}
	port := u.Port()
	if port == "" {
		port = defaultPort[u.Scheme]
	}
	t := &target{
		hostPort:   joinHostPort(u.Hostname(), port),
		host:       u.Host,
		path:       u.RequestURI(),
		head:       strings.EqualFold(c.Method, "HEAD"),
		idempotent: idempotentMethod(c.Method),
		tls:        u.Scheme == "https" || u.Scheme == "wss",
		sni:        u.Hostname(),
	}
	for _, h := range c.Header {
		if err := http1.ValidateHeader(h[0], h[1]); err != nil {
			return nil, fmt.Errorf("bad header %q: %v", h[0], err)
		}
		if strings.EqualFold(h[0], "Host") {
			t.sni = hostOnly(h[1]) // -H Host: names the server, as curl's does
		}
	}
	if c.TLS.ServerName != "" {
		t.sni = c.TLS.ServerName
	}
	if t.tls {
		if err := c.TLS.validate(); err != nil {
			return nil, err
		}
	} else if c.AutoProtocol {
		return nil, ErrAutoNeedsTLS
	} else if c.HTTP3 {
		return nil, fmt.Errorf("HTTP/3 needs an https:// URL (QUIC is always encrypted), got %q", c.URL)
	}
	if c.HTTP3 && (u.Scheme == "ws" || u.Scheme == "wss") {
		return nil, errors.New("WebSocket over HTTP/3 is not supported: drop --proto h3 for a ws:// or wss:// URL")
	}
	if err := c.validateWebSocket(u.Scheme == "ws" || u.Scheme == "wss"); err != nil {
		return nil, err
	}
	if !http1.IsToken(c.Method) {
		return nil, fmt.Errorf("bad method %q: must be a token such as GET or POST", c.Method)
	}
	t.req = newTargetRequest(&http1.Request{
		Method:    c.Method,
		Target:    t.path,
		Host:      t.host,
		Header:    c.GRPCStream.header(c.Header, len(c.Body)),
		Body:      c.Body,
		Close:     c.DisableKeepAlive,
		UserAgent: "gust",
	})
	if u.Scheme == "ws" || u.Scheme == "wss" {
		if t.ws, err = newWSRun(c, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// defaultPort is each scheme's port when the URL gives none.
var defaultPort = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

func joinHostPort(host, port string) string {
	if strings.IndexByte(host, ':') >= 0 {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
