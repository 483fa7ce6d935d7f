package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/metrics"
)

// metricsFlags are gust load's live metrics: --metrics-addr serves
// Prometheus's formats on /metrics while the run goes on.
type metricsFlags struct {
	addr    string
	linger  time.Duration
	buckets string
}

func (m *metricsFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&m.addr, "metrics-addr", "", "serve live metrics for Prometheus on http://ADDR/metrics while the run goes on, e.g. 127.0.0.1:9464")
	fl.DurationVar(&m.linger, "metrics-linger", 0, "after the run, keep serving the final metrics this long (a scrape interval, so that Prometheus sees them)")
	fl.StringVar(&m.buckets, "metrics-buckets", "", "latency histogram's bucket bounds, increasing, e.g. 5ms,10ms,25ms (default 100µs to 60s)")
}

// bounds parses --metrics-buckets into seconds; nil for the default.
func (m *metricsFlags) bounds() ([]float64, error) {
	if m.buckets == "" {
		return nil, nil
	}
	var out []float64
	for _, s := range strings.Split(m.buckets, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--metrics-buckets: %q is not a positive duration such as 10ms", s)
		}
		if len(out) > 0 && d.Seconds() <= out[len(out)-1] {
			return nil, fmt.Errorf("--metrics-buckets: %s is not above the bound before it; give them in increasing order", s)
		}
		out = append(out, d.Seconds())
	}
	return out, nil
}

// check refuses flags that need --metrics-addr without it.
func (m *metricsFlags) check() error {
	if m.addr == "" && (m.linger != 0 || m.buckets != "") {
		return fmt.Errorf("--metrics-linger and --metrics-buckets need --metrics-addr")
	}
	if m.linger < 0 {
		return fmt.Errorf("--metrics-linger must not be negative, got %s", m.linger)
	}
	_, err := m.bounds()
	return err
}

// start binds --metrics-addr and has cfg's run update it; nil without
// the flag. The config is checked already.
func (m *metricsFlags) start(cfg *load.Config) (*metrics.Server, error) {
	if m.addr == "" {
		return nil, nil
	}
	bounds, err := m.bounds()
	if err != nil {
		return nil, err
	}
	exp := metrics.NewExporter(cfg.Shard, bounds)
	srv, err := metrics.Listen(m.addr, exp)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", m.addr, listenError(err))
	}
	cfg.Live = exp.Update
	return srv, nil
}

// listenError drops net.OpError's repetition of the address.
func listenError(err error) error {
	if oe, ok := err.(*net.OpError); ok && oe.Err != nil {
		return oe.Err
	}
	return err
}

// stop serves the final values for --metrics-linger (Ctrl-C cuts it
// short), then closes the server.
func (m *metricsFlags) stop(ctx context.Context, srv *metrics.Server) {
	if srv == nil {
		return
	}
	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	srv.Close(ctx, m.linger)
}
