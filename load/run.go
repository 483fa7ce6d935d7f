package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// Run drives the load described by cfg until its request count or duration
// is reached or ctx is cancelled, and returns what it measured. A cancelled
// run still returns its Result, with Interrupted set.
//
// Run fails before sending anything if the configuration is invalid or no
// connection to the target can be made within cfg.Timeout.
func Run(ctx context.Context, cfg Config) (*result.Result, error) {
	e, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	if err := e.probe(ctx); err != nil {
		return nil, err
	}
	if !waitUntil(ctx, cfg.StartAt) {
		// Stopped while waiting for the start: nothing was sent.
		res := e.newResult()
		res.Start = time.Now()
		res.Interrupted = true
		return res, nil
	}
	return e.run(ctx)
}

// waitUntil sleeps until t, and reports false if ctx was done first.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if t.IsZero() || d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// engine holds what the event loops of one run share.
type engine struct {
	cfg    Config
	target *target
	addr   *net.TCPAddr

	base time.Time // zero of the loops' clock
	// measureStart is when measurement starts, in ns since base: once the
	// warmup is over and every connection has been established (or Timeout
	// after the warmup, for connections that cannot be). -1 until then.
	measureStart  atomic.Int64
	connectedOnce atomic.Int64 // connections that have been established at least once
	// loops are the run's loops, woken when one of them starts
	// measurement, so that none sleeps through the start (up to maxWait).
	loops []*loop

	claimed atomic.Int64 // requests handed out, against cfg.Requests
	stop    atomic.Bool  // set to make every loop wind down now

	collector *collector
	feed      *feeder // runs cfg.Source; nil without one, or with pickers
	// pickers, one per loop, pick a DataSource's requests in the loops
	// instead of a feeder (see data_picker.go).
	pickers []*dataPicker
	curve   *curve // cfg.Stages' rate curve (this shard's); nil without stages
	stages  string // the whole run's stages, as the Result gives them

	// tlsConfig is every connection's crypto/tls configuration for an
	// https:// target, with the run's session cache; nil for http://.
	tlsConfig *tls.Config
	// qcfg is every QUIC connection's configuration for an HTTP/3 run,
	// quicRemote the server's address as datagrams name it; nil otherwise.
	qcfg       *quic.Config
	quicRemote netip.AddrPort
	offload    datagram.Features // UDP GSO and GRO, as the kernel offers them
}

func newEngine(c Config) (*engine, error) {
	cfg := c.withDefaults()
	t, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if err := cfg.applyShard(); err != nil {
		return nil, err
	}
	addr, err := net.ResolveTCPAddr("tcp", t.hostPort)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", t.hostPort, err)
	}
	e := &engine{cfg: cfg, target: t, addr: addr}
	if t.ws != nil {
		t.ws.clock = e.now
	}
	if t.tls {
		tc := cfg.TLS
		if tc.NextProtos == nil {
			tc.NextProtos = e.alpnOffer()
		}
		e.tlsConfig = tc.clientConfig(t.sni, cfg.Connections)
		if cfg.HTTP3 {
			e.offload = probeOffload()
			e.qcfg = e.newQUICConfig()
			ap := e.addr.AddrPort()
			e.quicRemote = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		}
	}
	if ds, ok := cfg.Source.(*DataSource); ok && cfg.Speed == 0 {
		e.pickers = ds.pickers(cfg.Loops)
	}
	if cfg.Source != nil && e.pickers == nil {
		e.feed = newFeeder(&cfg)
	}
	if len(cfg.Stages) > 0 {
		e.curve = newCurve(cfg.Stages)
		e.stages = FormatStages(c.Stages)
	}
	return e, nil
}

// probe makes one connection, with its TLS handshake for an https://
// target, so that an unreachable target or a refused certificate fails
// fast with its reason (a *HandshakeError for the handshake) instead of a
// run full of connect errors.
func (e *engine) probe(ctx context.Context) error {
	if e.qcfg != nil {
		return e.probeQUIC(ctx)
	}
	d := net.Dialer{Timeout: e.cfg.Timeout}
	conn, err := d.DialContext(ctx, "tcp", e.addr.String())
	if err != nil {
		return fmt.Errorf("cannot connect to %s: %w", e.target.hostPort, unwrapOpError(err))
	}
	defer conn.Close()
	wsH2 := e.target.ws != nil && e.cfg.HTTP2
	if e.tlsConfig == nil {
		if wsH2 {
			return probeExtendedConnect(conn, e.cfg.Timeout, e.target.hostPort)
		}
		return nil
	}
	// Without the session cache: the run's first handshakes are its own.
	cfg := e.tlsConfig.Clone()
	cfg.ClientSessionCache = nil
	tc := tls.Client(conn, cfg)
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		return &HandshakeError{Addr: e.target.hostPort, Reason: transport.VerifyErrorLine(err), Err: err}
	}
	if wsH2 {
		if err := probeExtendedConnect(tc, e.cfg.Timeout, e.target.hostPort); err != nil {
			return err
		}
	}
	return tc.Close()
}

func unwrapOpError(err error) error {
	if oe, ok := err.(*net.OpError); ok && oe.Err != nil {
		if se, ok := oe.Err.(interface{ Unwrap() error }); ok && se.Unwrap() != nil {
			return se.Unwrap()
		}
		return oe.Err
	}
	return err
}

// measureEnd returns when the run ends, in ns since base, or 0 while that
// is not known (no Duration, or measurement has not started).
func (e *engine) measureEnd() int64 {
	start := e.measureStart.Load()
	if e.cfg.Duration == 0 || start < 0 {
		return 0
	}
	return start + int64(e.cfg.Duration)
}

// now returns the loops' clock: monotonic nanoseconds since base.
func (e *engine) now() int64 { return int64(time.Since(e.base)) }

// claim reserves one request against cfg.Requests; false means the budget
// is spent. Requests are only claimed while measuring.
func (e *engine) claim() bool {
	if e.cfg.Requests == 0 {
		return true
	}
	return e.claimed.Add(1) <= e.cfg.Requests
}

// budgetLeft reports whether more requests may still be claimed.
func (e *engine) budgetLeft() bool {
	return e.cfg.Requests == 0 || e.claimed.Load() < e.cfg.Requests
}

func (e *engine) run(ctx context.Context) (*result.Result, error) {
	loops, err := e.newLoops()
	if err != nil {
		return nil, err
	}
	return e.runLoops(ctx, loops), nil
}

// runLoops runs prepared loops to the end of the run and gathers the Result.
func (e *engine) runLoops(ctx context.Context, loops []*loop) *result.Result {
	e.collector = newCollector(len(loops), e.cfg.Progress, e.cfg.IntervalHistograms)
	e.collector.target = e.targetInSecond
	if e.cfg.Live != nil {
		e.collector.live = newLiveState(len(loops), e.cfg.Live, e.rateAt)
	}
	go e.collector.run()

	e.base = time.Now()
	e.loops = loops
	e.measureStart.Store(-1)
	if e.feed != nil || e.cfg.RampUp > 0 {
		// Every request of a replay counts: nothing waits for the ramp;
		// a ramp-up is measured, as the load it asks for.
		e.measureStart.Store(int64(e.cfg.Warmup))
	}

	stopWatch := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			e.stop.Store(true)
			for _, l := range loops {
				l.wake()
			}
		case <-stopWatch:
		}
	}()

	if e.feed != nil {
		e.feed.loops = loops
		go e.feed.run()
	}

	if e.cfg.OwnThreads {
		poll.SpareP(len(loops)) // for the collector, the feeder and the stop watch
	}
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	wg.Wait()
	close(stopWatch)
	if e.feed != nil {
		e.feed.closeLoops()
		close(e.feed.stop)
		// The feeder stops at its next batch; wait for it unless the
		// Source is blocked on its input.
		select {
		case <-e.feed.exit:
		case <-time.After(time.Second):
		}
	}
	var end int64
	for _, l := range loops {
		end = max(end, l.stoppedAt)
	}
	close(e.collector.in)
	<-e.collector.done

	res := e.newResult()
	res.Interrupted = ctx.Err() != nil
	if start := e.measureStart.Load(); start >= 0 {
		res.Start = e.base.Add(time.Duration(start))
		if end > start {
			res.Duration = time.Duration(end - start)
		}
	} else {
		res.Start = e.base // stopped before measuring began
	}
	for _, l := range loops {
		l.finishQUIC()
		l.stats.mergeInto(res, l.tls, l.quic)
		if res.WebSocket != nil {
			l.stats.ws.addTo(res.WebSocket, l.wsHeld())
		}
		l.close()
	}
	if e.cfg.AutoProtocol && res.TLS != nil {
		res.Protocols = e.protocolsSpoken(res.TLS.ALPN)
	}
	if e.cfg.Source != nil {
		res.Endpoints = mergeEndpoints(loops, e.cfg.Source.Endpoints())
	}
	if e.cfg.Flow != nil {
		e.flowResult(loops, res)
	}
	if e.curve != nil {
		// The pool as it ended: -c, grown toward MaxConnections.
		res.Connections = 0
		for _, l := range loops {
			res.Connections += len(l.conns)
		}
	}
	res.Timeline = e.collector.timeline
	sort.Slice(res.Timeline, func(i, j int) bool { return res.Timeline[i].Second < res.Timeline[j].Second })
	if e.collector.live != nil {
		e.collector.live.final(res)
	}
	return res
}

func (e *engine) newResult() *result.Result {
	method := e.cfg.Method
	if e.cfg.Source != nil {
		method = "" // the source's requests have their own
	}
	res := &result.Result{
		URL:         e.cfg.URL,
		Method:      method,
		Connections: e.cfg.Connections,
		Loops:       e.cfg.Loops,
		Pipeline:    e.cfg.Pipeline,
		Rate:        e.cfg.Rate,
		Stages:      e.stages,
		Speed:       e.cfg.Speed,
		KeepAlive:   !e.cfg.DisableKeepAlive,
		Shard:       e.cfg.Shard,
		StartAt:     e.cfg.StartAt,
		Latency:     result.NewHistogram(),
		Connect:     result.NewHistogram(),
		Lateness:    result.NewHistogram(),
		Status:      make(map[int]int64),
		Errors:      make(map[result.ErrorKind]int64),
	}
	switch {
	case e.target != nil && e.target.ws != nil:
		res.Protocol = result.ProtoWebSocket
		res.WebSocket = newWebSocketResult(&e.cfg)
	case e.cfg.HTTP2:
		res.Protocol = result.ProtoH2C
		if e.sessionScheme() == "https" {
			res.Protocol = result.ProtoH2 // by ALPN
		}
		res.HTTP2 = result.NewHTTP2(e.cfg.Streams)
	case e.cfg.HTTP3:
		res.Protocol = result.ProtoH3
		res.QUIC = result.NewQUIC()
		res.QUIC.Streams = e.cfg.Streams
	case e.cfg.AutoProtocol:
		// HTTP2 is kept even if no connection gets h2: it holds -m, which
		// gust merge compares, and the reports leave out its counters
		// when Protocols says no connection spoke HTTP/2.
		res.Protocol = result.ProtoAuto
		res.HTTP2 = result.NewHTTP2(e.cfg.Streams)
		res.Protocols = e.protocolsSpoken(nil)
	}
	return res
}
