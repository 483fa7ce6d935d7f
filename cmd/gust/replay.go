package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/replay"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// replayFlags holds gust replay's command line.
type replayFlags struct {
	target       string
	format       string
	speed        float64
	rate         float64
	max          bool
	loop         int
	connections  int
	requests     int64
	duration     time.Duration
	include      []string
	exclude      []string
	methods      string
	headers      []string
	host         string
	pipeline     int
	proto        protoFlags
	streams      int
	timeout      time.Duration
	output       string
	hdrLog       string
	quiet        bool
	cpuProfile   string
	loops        int
	maxEndpoints int
	tls          tlsFlags
}

func newReplayCmd() *cobra.Command {
	f := &replayFlags{}
	cmd := &cobra.Command{
		Use:   "replay [flags] LOGFILE|-",
		Short: "Replay the requests of an access log against a server, per endpoint",
		Long: `Replay the requests of an access log against --target, keeping each request's
method, path, query, logged headers and body, and report what gust load reports
plus a table per endpoint (method and path with ids collapsed: GET /users/:id).

Logs: nginx/Apache combined or common log format, or JSON lines with method,
url or path, headers, body or body_base64 and time (RFC 3339 or Unix seconds);
gzip-compressed or not; "-" reads standard input. The format is detected from
the first line unless --format says it. The log is streamed, never loaded.

Pacing: by default the log's own times (--speed 1); --speed 5 replays five
times faster, --rate sends at a flat rate and --max as fast as the connections
allow. With --speed and --rate latency is measured from each request's intended
time, so late sends are counted and charged (as in gust load --rate). Lines
that share a whole-second time, as in every common log format file, are spread
evenly over that second.

Lines that cannot be parsed are skipped and reported with their line numbers.
The run ends when the log has been replayed (--loop times) and the last
response is in, or at -n or -z.`,
		Example: `  gust replay --target http://127.0.0.1:8080 access.log
  gust replay --target http://10.0.0.5:8080 --speed 5 -c 200 access.log.gz
  gust replay --target https://10.0.0.5:8443 --host api.example.test --cacert ca.pem access.log
  gust replay --target http://127.0.0.1:8080 --max --include '^/api/' --methods GET -o json access.log
  zcat logs/*.gz | gust replay --target http://127.0.0.1:8080 --rate 20000 -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("replay: need exactly one log file (or - for standard input), got %d arguments (see 'gust replay --help')", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.target, "target", "", "server to send to, http://host:port or https://host:port (required); the log's paths and queries are kept")
	fl.StringVar(&f.format, "format", "auto", "log format: auto, combined, common or json")
	fl.Float64Var(&f.speed, "speed", 0, "keep the log's times, scaled: 1 as recorded, 5 five times faster (the default, at 1)")
	fl.Float64Var(&f.rate, "rate", 0, "send at a flat rate of this many requests per second instead")
	fl.BoolVar(&f.max, "max", false, "send as fast as the connections allow instead")
	fl.IntVar(&f.loop, "loop", 1, "replay the log this many times (0: until -n or -z)")
	fl.IntVarP(&f.connections, "connections", "c", load.DefaultConnections, "concurrent connections")
	fl.Int64VarP(&f.requests, "requests", "n", 0, "stop after this many responses")
	fl.DurationVarP(&f.duration, "duration", "z", 0, "stop after this long, e.g. 30s")
	fl.StringArrayVar(&f.include, "include", nil, "replay only paths (with query) matching this regexp (repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "leave out paths (with query) matching this regexp (repeatable)")
	fl.StringVar(&f.methods, "methods", "", "replay only these methods, e.g. GET,HEAD")
	fl.StringArrayVarP(&f.headers, "header", "H", nil, `add header "Name: value" to every request, replacing a logged one (repeatable)`)
	fl.StringVar(&f.host, "host", "", "Host header (default: the target's host:port)")
	fl.IntVar(&f.pipeline, "pipeline", 1, "requests in flight per connection (HTTP pipelining)")
	f.proto.add(fl, "--target")
	fl.IntVarP(&f.streams, "streams", "m", 0, "with --http2 or --proto auto, streams in flight per HTTP/2 connection (default 1), as h2load's -m")
	fl.DurationVar(&f.timeout, "timeout", load.DefaultTimeout, "limit for connecting and for each response")
	fl.StringVarP(&f.output, "output", "o", "text", "report format: text, json or csv (the per-second timeline)")
	fl.StringVar(&f.hdrLog, "hdr-log", "", "also write an HdrHistogram interval log to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress line on stderr")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of gust itself to this file (go tool pprof)")
	fl.IntVar(&f.loops, "loops", 0, "event loops (default: one per CPU)")
	fl.IntVar(&f.maxEndpoints, "max-endpoints", replay.DefaultMaxEndpoints, "distinct endpoints to report; the rest count as "+replay.OtherEndpoint)
	f.tls.add(fl)
	return cmd
}

// config checks the flags and turns them into the engine's Config and the
// log's Options.
func (f *replayFlags) config(cmd *cobra.Command, logPath string) (load.Config, replay.Options, error) {
	var cfg load.Config
	var opts replay.Options
	paced := 0
	for _, set := range []bool{cmd.Flags().Changed("speed"), f.rate != 0, f.max} {
		if set {
			paced++
		}
	}
	switch {
	case f.target == "":
		return cfg, opts, errors.New("--target is required, e.g. --target http://127.0.0.1:8080")
	case paced > 1:
		return cfg, opts, errors.New("give one of --speed, --rate and --max")
	case cmd.Flags().Changed("speed") && !(f.speed > 0):
		return cfg, opts, fmt.Errorf("--speed must be positive, got %g", f.speed)
	case f.rate < 0:
		return cfg, opts, fmt.Errorf("--rate must be positive, got %g", f.rate)
	case f.loop < 0:
		return cfg, opts, fmt.Errorf("--loop must be 0 (without end) or more, got %d", f.loop)
	case f.loop == 0 && f.requests == 0 && f.duration == 0:
		return cfg, opts, errors.New("--loop 0 replays without end: give -n or -z too")
	case f.loop != 1 && logPath == "-":
		return cfg, opts, errors.New("--loop needs a log file: standard input can be read once")
	case f.connections <= 0:
		return cfg, opts, fmt.Errorf("-c must be at least 1, got %d", f.connections)
	case f.requests < 0:
		return cfg, opts, fmt.Errorf("-n must not be negative, got %d", f.requests)
	case f.duration < 0:
		return cfg, opts, fmt.Errorf("-z must not be negative, got %s", f.duration)
	case f.timeout <= 0:
		return cfg, opts, fmt.Errorf("--timeout must be positive, got %s", f.timeout)
	case f.maxEndpoints <= 0:
		return cfg, opts, fmt.Errorf("--max-endpoints must be at least 1, got %d", f.maxEndpoints)
	}
	if err := report.CheckFormat(f.output, replayFormats); err != nil {
		return cfg, opts, err
	}
	targetURL, hostPort, err := parseTarget(f.target)
	if err != nil {
		return cfg, opts, err
	}
	format, err := replay.ParseFormat(f.format)
	if err != nil {
		return cfg, opts, fmt.Errorf("--format: %w", err)
	}
	cfg = load.Config{
		URL:                targetURL,
		Connections:        f.connections,
		Requests:           f.requests,
		Duration:           f.duration,
		Rate:               f.rate,
		Pipeline:           f.pipeline,
		Streams:            f.streams,
		Timeout:            f.timeout,
		Loops:              f.loops,
		IntervalHistograms: f.hdrLog != "",
	}
	if err := f.proto.apply(&cfg, targetURL, f.streams); err != nil {
		return cfg, opts, err
	}
	if f.rate == 0 && !f.max {
		cfg.Speed = 1
		if f.speed > 0 {
			cfg.Speed = f.speed
		}
	}
	opts = replay.Options{
		Format:       format,
		Host:         hostPort,
		Passes:       f.loop,
		Timed:        cfg.Speed > 0,
		MaxEndpoints: f.maxEndpoints,
	}
	if f.loop == 0 {
		opts.Passes = -1
	}
	if f.host != "" {
		opts.Host = f.host
	}
	serverName := ""
	if f.host != "" {
		serverName = hostOnly(f.host) // SNI follows --host
	}
	if cfg.TLS, err = f.tls.config(serverName); err != nil {
		return cfg, opts, err
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return cfg, opts, fmt.Errorf("bad header %q: use \"Name: value\"", h)
		}
		opts.Header = append(opts.Header, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	for _, m := range strings.Split(f.methods, ",") {
		if m = strings.TrimSpace(m); m != "" {
			opts.Methods = append(opts.Methods, strings.ToUpper(m))
		}
	}
	compile := func(flag string, exprs []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("bad %s %q: %v", flag, e, err)
			}
			out = append(out, re)
		}
		return out, nil
	}
	if opts.Include, err = compile("--include", f.include); err != nil {
		return cfg, opts, err
	}
	if opts.Exclude, err = compile("--exclude", f.exclude); err != nil {
		return cfg, opts, err
	}
	return cfg, opts, nil
}

// parseTarget checks --target and returns the URL for the engine and the
// default Host header.
func parseTarget(target string) (string, string, error) {
	if !strings.Contains(target, "://") {
		return "", "", fmt.Errorf("bad --target %q: missing scheme, try http://%s", target, target)
	}
	u, err := url.Parse(target)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("bad --target %q: %v", target, http1.UnwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "", fmt.Errorf("bad --target %q: scheme %q is not supported, use http:// or https://", target, u.Scheme)
	case u.Hostname() == "":
		return "", "", fmt.Errorf("bad --target %q: missing host", target)
	case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.User != nil:
		return "", "", fmt.Errorf("bad --target %q: give only %s://host:port; the log's paths and queries are kept", target, u.Scheme)
	}
	return u.Scheme + "://" + u.Host + "/", u.Host, nil
}

func runReplay(cmd *cobra.Command, f *replayFlags, logPath string) error {
	cfg, opts, err := f.config(cmd, logPath)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var src *replay.Source
	if logPath == "-" {
		src, err = replay.NewSource(cmd.InOrStdin(), "-", opts)
	} else {
		src, err = replay.Open(logPath, opts)
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer src.Close()
	cfg.Source = src

	res, err := drive(cmd, "replay", cfg, driveOptions{quiet: f.quiet, cpuProfile: f.cpuProfile, hdrLog: f.hdrLog})
	if err != nil {
		return err
	}
	res.Input = reportInput(src.Stats())
	if err := report.Write(cmd.OutOrStdout(), f.output, res); err != nil {
		return err
	}
	if err := src.Err(); err != nil {
		// The report covers what was replayed before the log failed.
		return fmt.Errorf("replay: the log could not be read to its end: %w", err)
	}
	return nil
}

// hostOnly strips the port from a Host value: "example.test:8443" is
// "example.test", "[::1]:8443" is "::1".
func hostOnly(hostPort string) string {
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		return h
	}
	return strings.Trim(hostPort, "[]")
}

// replayFormats are the report formats of gust replay: report.Formats
// but HTML, which has no endpoint table yet.
var replayFormats = []string{"text", "json", "csv"}

// reportInput is what the replay read from its log, for its report.
func reportInput(st replay.Stats) *result.Input {
	in := &result.Input{
		File:     st.Name,
		Format:   st.Format.String(),
		Lines:    st.Lines,
		Requests: st.Requests,
		Filtered: st.Filtered,
		Skipped:  st.Skipped,
		Passes:   st.Passes,
	}
	in.SkippedLines = make([]result.SkippedLine, 0, len(st.FirstSkipped))
	for _, b := range st.FirstSkipped {
		in.SkippedLines = append(in.SkippedLines, result.SkippedLine{Line: b.Line, Reason: b.Reason, Text: b.Text})
	}
	return in
}
