package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// loadFlags holds gust load's command line, named after hey's and ab's
// flags where they have one.
type loadFlags struct {
	requests         int64
	connections      int
	duration         time.Duration
	warmup           time.Duration
	method           string
	headers          []string
	data             string
	dataFile         string
	contentType      string
	timeout          time.Duration
	sse, stream      bool     // --sse, --stream: responses read as streams
	rxStamps         autoBool // --rx-stamps: on by default with --sse and --stream
	output           string
	qps              float64
	rate             float64
	keepAlive        bool
	disableKeepAlive bool
	pipeline         int
	proto            protoFlags
	streams          int
	loops            int
	ownThreads       bool
	hdrLog           string
	cpuProfile       string
	quiet            bool
	shard            string
	startAt          string
	tls              tlsFlags
	connect          connectFlags
	stage            stageFlags
	ws               wsFlags
	reqData          dataFlags
	flow             flowFlags
	grpc             grpcFlags
	judge            thresholdFlags
	find             findFlags
	metrics          metricsFlags
}

func newLoadCmd() *cobra.Command { return loadCommand(&loadFlags{}) }

// loadCommand is gust load with its flags parsed into f.
func loadCommand(f *loadFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "load [flags] URL",
		Short: "Send HTTP/1.1, HTTP/2 or WebSocket load to a URL (http://, https://, ws://, wss://) and report throughput and latency",
		Long: `Send HTTP/1.1 load to a URL from event loops on non-blocking sockets, and
report throughput, latency percentiles (HdrHistogram), status codes and errors.
With --proto h2 (or --http2), speak HTTP/2 (h2c with prior knowledge to
http://, h2 by ALPN to https://) with -m streams per connection; latency is
from a request's HEADERS to its response's END_STREAM. With --proto auto
(https:// only), offer h2 and http/1.1 by ALPN and let the server pick for
each connection; the report counts the connections that got each. With
--proto h3 (or --http3, https:// only), speak HTTP/3 over QUIC, a UDP
socket per connection read and written in batches on the same loops, -m
streams per connection; the report adds the QUIC handshakes, round-trip
times, packets lost and datagrams per system call.

A ws:// or wss:// URL upgrades each connection to a WebSocket and sends
messages (--ws-size bytes, or -d/-D; --ws-text for text frames), keeping
--ws-inflight in flight per connection; each message the server sends back
completes the oldest, so an echo server's round trips are the latency, and
messages count as requests. --ws-deflate offers permessage-deflate.
--ws-hold only upgrades and holds, pinging every --ws-ping, and reports how
many connections are still open at the end. A refused upgrade is an
"upgrade" error, counted by its status. With --http2, each connection's
WebSocket is an HTTP/2 extended CONNECT stream (RFC 8441; h2c to ws://,
h2 by ALPN to wss://), one per connection; a server that does not allow
it (SETTINGS_ENABLE_CONNECT_PROTOCOL) fails the run at once.

Closed model (default): -c connections send as fast as responses come back.
Open model (--rate or -q): requests start on a constant schedule, and latency
is measured from each request's intended start, so a stalled server cannot
hide its stalls (coordinated omission is corrected). With --stages the rate
changes: from 0 it moves linearly to each stage's rate over the stage's
duration, the requests go to whichever of the -c connections is free, and
--max-connections lets that pool grow when none is. Size -c for the peak:
about the peak rate times the latency you expect (5000 req/s at 10 ms: 50),
divided by --pipeline or -m. --ramp-up D opens the closed model's
connections evenly over D.

Without -n or -z the run lasts 10s.

--targets FILE sends the requests of a file (a line each, METHOD URL
[weight=N] [@FILE|BODY] with header fields on the lines below, or JSON
lines), picked by weight, in order or at random; --data-csv FILE fills
{{column}} placeholders in the URL, -H, -d and the targets from one CSV row
per request, and the run ends when the rows are used up (--data-loop starts
them again). Each targets request is an endpoint of the report.

--flow FILE runs user journeys (YAML or JSON): each of --vus users (sharing
-c connections, by default one each up to 1,000; a thinking user holds
none) sends the flow's steps in turn, captures variables
from the answers (JSON paths, headers, regular expressions, cookies) for
the next steps, checks them and thinks between them; --iterations N or -z
bounds the run, --iterations-rate R begins iterations at a rate instead,
--stages ramps the busy users. Steps are endpoints; the report adds
iterations and checks (docs/guides/flows.md).

https:// URLs are verified against the system's roots (--cacert to name the
CA, --insecure to skip verification), with SNI from the URL's host or -H Host:.
A refused certificate stops the run before it starts, with the reason on one
line and exit status 1. Reopened connections resume their TLS sessions unless
--no-tls-resume; the report gives the TLS version, cipher suite, full and
resumed handshakes and the handshake times.

Several agents, on one machine or many, can share a run: --shard I/N runs the
I-th (from 0) of N equal shares of it (connections, --rate and -n divided,
remainders spread), --start-at makes agents started apart begin together, and
gust merge adds their -o json results into one report, exactly.

--threshold EXPR (repeatable) judges the whole run: a latency percentile,
mean, min or max (p99<250ms, p99.9<1s, mean<20ms), error_rate (errors, and
the statuses of --fail-status, of the requests that ended: error_rate<0.1%),
rps (rps>=1000) or late_rate (open model: requests sent more than 1ms late,
late_rate<1%), and with --flow checks (checks>99.9%), a step's latency or
error_rate (step:login p99<200ms) or an iteration's duration (iteration
p95<2s), with < <= > or >=. The report lists each with its measured
value and ok or FAILED. Exit status: 0 when the run was made and every
threshold held, 99 when a threshold failed (as k6), 1 when the target
refused a TLS handshake, 2 for bad flags or a run that could not be made.

--find-max searches for the capacity of the target under an objective
(--slo, written as a threshold, e.g. p99<10ms): open-model steps from
--find-start req/s, doubling until a step misses the objective (or achieves
less than 95% of its rate), then bisecting between the highest rate met and
the lowest missed until they are 2% apart, within --max-time. Each step
lasts -z (default 5s) after its own --warmup (default 1s) on -c connections
(a connection carries one request at a time: give enough for the rate times
the latency). The report gives the highest rate met and every step's rate,
achieved rate, p50, p99, p99.9 and errors; -o html draws latency against
throughput.`,
		Example: `  gust load -c 200 -z 30s http://127.0.0.1:8080/
  gust load --rate 20000 -z 1m -o json http://127.0.0.1:8080/api
  gust load --stages 30s:1000,2m:5000,30s:0 -c 50 --max-connections 500 http://127.0.0.1:8080/
  gust load -c 1000 --ramp-up 20s -z 1m http://127.0.0.1:8080/
  gust load -n 100000 -m POST -T application/json -d '{"a":1}' http://127.0.0.1:8080/items
  gust load --pipeline 16 -c 100 -z 10s http://127.0.0.1:8080/
  gust load --targets api.txt --data-csv users.csv --data-loop -c 50 -z 30s http://127.0.0.1:8080/
  gust load --flow journey.yaml --vus 50 -z 1m --threshold 'checks>99.9%' http://127.0.0.1:8080/
  gust load --http2 -m 10 -c 10 -z 10s http://127.0.0.1:8080/
  gust load --proto auto -m 10 -c 10 -z 10s https://api.example.test/
  gust load -c 100 -z 30s --cacert ca.pem https://api.example.test/health
  gust load -c 200 -z 30s --ws-inflight 4 ws://127.0.0.1:8080/ws
  gust load -c 10000 -z 1m --ws-hold --ws-ping 10s ws://127.0.0.1:8080/ws
  gust load --http2 -c 50 -z 30s ws://127.0.0.1:8080/ws
  gust load --grpc-call grpc.testing.TestService/UnaryCall --grpc-proto test.proto -d '{"response_size":100}' -c 10 -m 10 -z 10s http://127.0.0.1:8087
  gust load --insecure --disable-keepalive -c 16 -z 10s https://127.0.0.1:8443/
  gust load --rate 2000 -z 30s --threshold 'p99<250ms' --threshold 'error_rate<0.1%' --fail-status 5xx http://127.0.0.1:8080/
  gust load --find-max --slo 'p99<10ms' -c 200 --max-time 2m -o html http://127.0.0.1:8080/ > capacity.html
  gust load --shard 0/4 --start-at 2025-06-01T12:00:00Z --rate 40000 -c 400 -z 1m -o json http://gust-server:8080/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("load: need exactly one URL, got %d arguments (see 'gust load --help')", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoad(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.Int64VarP(&f.requests, "requests", "n", 0, "stop after this many responses")
	fl.IntVarP(&f.connections, "connections", "c", load.DefaultConnections, "concurrent connections")
	fl.DurationVarP(&f.duration, "duration", "z", 0, "stop after this long, e.g. 30s (default 10s when -n is not given)")
	fl.DurationVar(&f.warmup, "warmup", 0, "send load this long before measuring (measuring also waits for every connection to be up)")
	fl.Float64Var(&f.rate, "rate", 0, "open model: requests per second in total, on a constant schedule")
	fl.Float64VarP(&f.qps, "qps", "q", 0, "open model as in hey: requests per second per connection (total is q x c)")
	fl.IntVar(&f.pipeline, "pipeline", 1, "requests in flight per connection (HTTP pipelining)")
	f.proto.add(fl, "URL")
	fl.IntVar(&f.streams, "streams", 0, "with --http2 or --proto auto, streams in flight per HTTP/2 connection, at most the server's limit (default 1); -m N says the same, as in h2load")
	fl.BoolVar(&f.disableKeepAlive, "disable-keepalive", false, "open a new TCP connection for every request")
	fl.BoolVarP(&f.keepAlive, "keepalive", "k", false, "accepted for ab users; keep-alive is the default")
	f.method = "GET"
	fl.VarP(&methodOrStreams{method: &f.method, streams: &f.streams}, "method", "m", "request method; a number instead (-m 10) is --streams, as h2load's -m")
	fl.StringArrayVarP(&f.headers, "header", "H", nil, `request header "Name: value" (repeatable)`)
	fl.StringVarP(&f.data, "data", "d", "", "request body")
	fl.StringVarP(&f.dataFile, "data-file", "D", "", "request body from a file")
	fl.StringVarP(&f.contentType, "content-type", "T", "", "Content-Type header")
	fl.DurationVar(&f.timeout, "timeout", load.DefaultTimeout, "limit for connecting and for each response")
	fl.BoolVar(&f.sse, "sse", false, "read every response as Server-Sent Events (as a text/event-stream answer is read anyway over HTTP/1.1): time to first event, gaps between events")
	fl.BoolVar(&f.stream, "stream", false, "read every response body as a stream: time to first piece and the gaps between pieces as they arrive")
	fl.Var(&f.rxStamps, "rx-stamps", "time what arrives on plain TCP by the kernel's receive stamp, not when gust reads it (Linux; default on with --sse and --stream)")
	fl.Lookup("rx-stamps").NoOptDefVal = "true"
	fl.StringVarP(&f.output, "output", "o", "text", "report format: text, json (with every histogram, for gust merge), csv (the per-second timeline) or html")
	fl.StringVar(&f.hdrLog, "hdr-log", "", "also write an HdrHistogram interval log to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress line on stderr")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the generator itself to this file (go tool pprof)")
	fl.IntVar(&f.loops, "loops", 0, "event loops (default: one per CPU)")
	fl.BoolVar(&f.ownThreads, "own-threads", false, "each loop waits in epoll_wait on its own thread, unseen by the Go scheduler (less CPU per wake-up when the loops sleep often; GOMAXPROCS raised to loops + 1; Linux)")
	fl.StringVar(&f.shard, "shard", "", "run share I of N (I from 0 to N-1) of the run the other flags describe, e.g. 0/4")
	addConnectFlags(fl, &f.connect)
	addStageFlags(fl, &f.stage)
	addWSFlags(fl, &f.ws)
	addDataFlags(fl, &f.reqData)
	addFlowFlags(fl, &f.flow)
	addGRPCFlags(fl, &f.grpc)
	addThresholdFlags(fl, &f.judge)
	addFindFlags(fl, &f.find)
	fl.StringVar(&f.startAt, "start-at", "", "begin at this time (RFC 3339, e.g. 2025-06-01T12:00:00Z) after checking the target; empty: at once")
	f.tls.add(fl)
	f.metrics.add(fl)
	return cmd
}

// config turns the flags into a load.Config, checking what cobra cannot.
func (f *loadFlags) config(url string) (load.Config, error) {
	cfg := load.Config{
		URL:              url,
		Method:           strings.ToUpper(f.method),
		Connections:      f.connections,
		Requests:         f.requests,
		Duration:         f.duration,
		Warmup:           f.warmup,
		Rate:             f.rate,
		DisableKeepAlive: f.disableKeepAlive,
		Pipeline:         f.pipeline,
		Streams:          f.streams,
		Timeout:          f.timeout,
		SSE:              f.sse,
		Stream:           f.stream,
		RXStamps:         f.rxStamps.or(f.sse || f.stream),
		Loops:            f.loops,
		OwnThreads:       f.ownThreads,
	}
	switch {
	case f.connections <= 0:
		return cfg, fmt.Errorf("-c must be at least 1, got %d", f.connections)
	case f.timeout <= 0:
		return cfg, fmt.Errorf("--timeout must be positive, got %s", f.timeout)
	case f.qps < 0:
		return cfg, fmt.Errorf("-q must not be negative, got %g", f.qps)
	case f.qps > 0 && f.rate > 0:
		return cfg, errors.New("give either -q (per connection) or --rate (total), not both")
	case f.data != "" && f.dataFile != "":
		return cfg, errors.New("give either -d or -D, not both")
	}
	f.grpc.impliesHTTP2(&f.proto)
	if err := f.proto.apply(&cfg, url, f.streams); err != nil {
		return cfg, err
	}
	if err := f.connect.apply(&cfg); err != nil {
		return cfg, err
	}
	if err := report.CheckFormat(f.output, report.Formats); err != nil {
		return cfg, err
	}
	if err := f.metrics.check(); err != nil {
		return cfg, err
	}
	if f.shard != "" {
		shard, err := result.ParseShard(f.shard)
		if err != nil {
			return cfg, fmt.Errorf("--shard: %w", err)
		}
		cfg.Shard = shard
	}
	if f.startAt != "" {
		at, err := time.Parse(time.RFC3339, f.startAt)
		if err != nil {
			return cfg, fmt.Errorf("--start-at %q is not an RFC 3339 time such as 2025-06-01T12:00:00Z", f.startAt)
		}
		cfg.StartAt = at
	}
	if f.qps > 0 {
		cfg.Rate = f.qps * float64(f.connections)
	}
	if err := f.ws.apply(&cfg, url, f.requests, cfg.Rate, f.data != "" || f.dataFile != ""); err != nil {
		return cfg, err
	}
	if err := f.stage.apply(&cfg, f); err != nil {
		return cfg, err
	}
	if cfg.Requests == 0 && cfg.Duration == 0 && len(cfg.Stages) == 0 {
		cfg.Duration = 10 * time.Second
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return cfg, fmt.Errorf("bad header %q: use \"Name: value\"", h)
		}
		cfg.Header = append(cfg.Header, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	if f.contentType != "" {
		cfg.Header = append(cfg.Header, [2]string{"Content-Type", f.contentType})
	}
	// SNI follows -H Host: (the engine reads it from cfg.Header).
	tlsCfg, err := f.tls.config("")
	if err != nil {
		return cfg, err
	}
	cfg.TLS = tlsCfg
	switch {
	case f.dataFile != "":
		body, err := os.ReadFile(f.dataFile)
		if err != nil {
			return cfg, fmt.Errorf("read body: %w", err)
		}
		cfg.Body = body
	case f.data != "":
		cfg.Body = []byte(f.data)
	}
	proto, _ := f.proto.resolve() // checked by f.proto.apply above
	if err := f.grpc.apply(&cfg, proto, f.timeout, f.flow.given() || f.reqData.given()); err != nil {
		return cfg, err
	}
	if err := f.flow.apply(&cfg, f); err != nil {
		return cfg, err
	} else if !f.flow.given() {
		if err := f.reqData.apply(&cfg, url, f.requests != 0 || f.duration != 0, f.data != "" || f.dataFile != ""); err != nil {
			return cfg, err
		}
	}
	// JSON carries every second's histogram so that gust merge can add
	// timelines exactly.
	cfg.IntervalHistograms = f.hdrLog != "" || f.output == "json"
	return cfg, nil
}

func runLoad(cmd *cobra.Command, f *loadFlags, url string) error {
	cfg, err := f.config(url)
	if err == nil && f.find.on {
		return runFindMax(cmd, f, cfg)
	}
	if err == nil {
		err = f.judge.check(cfg)
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	srv, err := f.metrics.start(&cfg)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer f.metrics.stop(cmd.Context(), srv) // after the report: its final values linger
	res, err := drive(cmd, "load", cfg, driveOptions{quiet: f.quiet, cpuProfile: f.cpuProfile, hdrLog: f.hdrLog})
	if err != nil {
		return err
	}
	f.reqData.note(cmd.ErrOrStderr())
	f.judge.judge(res)
	if err := report.Write(cmd.OutOrStdout(), f.output, res); err != nil {
		return err
	}
	return f.judge.verdict(cmd.ErrOrStderr(), res)
}

func writeFile(path string, write func(io.Writer) error) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine redraws one status line on a terminal once a second.
type progressLine struct {
	w io.Writer
}

func (p *progressLine) update(pr load.Progress) {
	fmt.Fprintf(p.w, "\r\033[K%6s  %10.0f req/s  %12d requests  %8d errors",
		pr.Elapsed.Round(time.Second), pr.LastRPS, pr.Requests, pr.Errors)
}

func (p *progressLine) clear() { fmt.Fprint(p.w, "\r\033[K") }

// methodOrStreams is -m: gust load's request method (as in hey), or, when
// it is a number, the streams per connection (as in h2load, whose -m it
// is). No method is a number: a method is a token and gust refuses digits
// only for this flag.
type methodOrStreams struct {
	method  *string
	streams *int
}

func (m *methodOrStreams) String() string {
	if m.method == nil {
		return ""
	}
	return *m.method
}

func (m *methodOrStreams) Set(v string) error {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return fmt.Errorf("streams per connection must be at least 1, got %d", n)
		}
		*m.streams = n
		return nil
	}
	*m.method = v
	return nil
}

func (m *methodOrStreams) Type() string { return "method|N" }
