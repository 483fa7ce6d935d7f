package load

import (
	"fmt"
	"time"

	"github.com/gust-http/gust/result"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/internal/mailbox"
	"github.com/gust-http/gust/internal/poll"
)

const (
	readBufSize     = 64 << 10
	maxResponseHead = 64 << 10
	maxWait         = 100 * time.Millisecond // longest a loop sleeps between housekeeping
	minBackoff      = int64(10 * time.Millisecond)
	maxBackoff      = int64(time.Second)
)

// loop is one event loop: it owns a share of the connections, a poller, a
// read buffer shared by its connections, and its own statistics.
type loop struct {
	id     int
	e      *engine
	poller *poll.Poller
	events []poll.Event
	conns  []*conn
	byFD   []*conn
	buf    []byte // read buffer; responses are parsed in place here
	sa     sockaddr
	// sources are the local addresses connections are bound to, in turn
	// (Config.SourceAddrs); pace spaces connects (Config.ConnectRate),
	// ramp the first ones (Config.RampUp).
	sources sourceAddrs
	pace    connectPace
	ramp    connectPace
	sched   schedule // what to send and when
	dv      delivery // the sink sessions deliver responses to
	req     request  // a Source's request being sent, viewing its batch
	// picker picks the loop's requests from request data; nil for the
	// run's one request or a feeder's batches.
	picker *dataPicker
	// perEndpoint: responses and failures count for their endpoints too
	// (a Source's run).
	perEndpoint bool

	timers   timerHeap
	stats    *stats
	inflight int // requests in flight on all of this loop's connections
	live     int // connections connecting or connected

	recording bool
	lastScan  int64
	scanEvery int64
	// watch holds the connections the timeout scan must visit: those
	// connecting, handshaking, not yet ready, or with requests in flight
	// (watchConn). An idle connection that is ready leaves it at a scan
	// and comes back with its next request, so that a million held
	// WebSockets under a trickle cost the scan next to nothing.
	watch     []*conn
	stoppedAt int64

	// The current second of the timeline.
	sec      int
	secReq   int64
	secErr   int64
	secBytes int64
	secHist  *hdrhistogram.Histogram
	sent     *liveSent // with Config.Live: the counts handed over so far

	eps endpointStats // per endpoint, with a Source

	// With TLS (see tls_loop.go); tls is nil for a plain run.
	hs  mailbox.Box[endedHandshake] // handshakes that ended (tls_loop.go); its lock is taken once per handshake
	tls *tlsStats

	// With HTTP/3 (see h3loop.go): the datagram batches the loop's
	// connections share, their counts, and the engines' timers.
	qio     *quicBatches
	quic    *quicStats
	qtimers quicTimers

	gtimers grpcTimers // streaming gRPC calls' next messages (grpctimers.go)
	rx      rxClock    // kernel receive stamps (Config.RXStamps; rxstamp.go)
}

// newLoops creates the event loops and spreads the connections over them.
func (e *engine) newLoops() ([]*loop, error) {
	cfg := &e.cfg
	// Timeouts are found within a twentieth of the timeout, and at most a
	// second late: a scan visits every connection (a cache miss or two
	// each), and a million held connections scanned every 100 ms cost the
	// generators more CPU than the server's pings did (docs/BENCHMARKS.md).
	scan := min(max(int64(cfg.Timeout)/20, int64(time.Millisecond)), int64(time.Second))
	for _, a := range cfg.SourceAddrs {
		if a.Is4() != (e.addr.IP.To4() != nil) {
			return nil, fmt.Errorf("source address %s is not of the target's family (%s)", a, e.addr.IP)
		}
	}
	loops := make([]*loop, cfg.Loops)
	for i := range loops {
		// Each loop needs its own: the socket calls write into it.
		sa, err := newSockaddr(e.addr)
		if err != nil {
			return nil, err
		}
		p, err := poll.New(1024)
		if err != nil {
			for _, l := range loops[:i] {
				l.poller.Close()
			}
			return nil, err
		}
		loops[i] = &loop{
			id: i, e: e, poller: p,
			events:      make([]poll.Event, 0, 1024),
			buf:         make([]byte, readBufSize),
			sa:          sa,
			sources:     newSourceAddrs(cfg.SourceAddrs, i),
			pace:        newConnectPace(cfg.ConnectRate, cfg.Loops),
			ramp:        newRampUp(cfg.Connections, cfg.RampUp, cfg.Loops),
			sched:       e.newSchedule(i),
			stats:       newStats(),
			scanEvery:   scan,
			secHist:     result.NewHistogram(),
			perEndpoint: e.cfg.Source != nil || e.cfg.Flow != nil,
		}
		loops[i].rx.on = cfg.RXStamps
		loops[i].hs.Init(p.Wake)
		if e.pickers != nil {
			loops[i].picker = e.pickers[i]
		}
		if e.qcfg != nil {
			loops[i].qio = newQUICBatches(e.offload)
			loops[i].quic = newQUICStats(loops[i].qio)
			loops[i].quic.streams = cfg.Streams
		} else if e.tlsConfig != nil {
			loops[i].tls = newTLSStats()
		}
		if e.target.ws != nil {
			loops[i].stats.ws.upgrade = result.NewHistogram()
		}
	}
	for j := 0; j < cfg.Connections; j++ {
		l := loops[j%len(loops)]
		l.sched.place(l.addConn(), j)
	}
	for _, l := range loops {
		switch s := l.sched.(type) {
		case *recordedSchedule:
			s.idle = newIdleQueue(len(l.conns))
		case *stagesSchedule:
			s.idle = newIdleQueue(s.maxConns) // room for the pool grown whole
		}
	}
	return loops, nil
}

// addConn gives l one more connection, not yet connected: one of the
// run's at the start, or one a growing pool adds (schedule_stages.go).
func (l *loop) addConn() *conn {
	var c *conn
	if l.qio != nil {
		h := newH3Session(l.e.qcfg, l.e.cfg.Streams, l.qio, l.quic)
		c = newConn(h)
		c.h3, h.c = h, c
	} else {
		c = newConn(l.e.newSession())
	}
	if ws, ok := c.ses.(*wsSession); ok {
		ws.st = &l.stats.ws // counted where the loop's stats are
	}
	l.conns = append(l.conns, c)
	return c
}

func (l *loop) wake() { l.poller.Wake() }

// run is the loop's body: connect everything, then wait for readiness and
// timers until the run is over.
func (l *loop) run() {
	now := l.e.now()
	l.startRecordingIfDue(now)
	for _, c := range l.conns {
		if at := l.sched.reconnectAt(c, now); l.e.cfg.DisableKeepAlive && at > now {
			l.wait(c, at)
			continue
		}
		l.connect(c, now)
	}
	for {
		now = l.e.now()
		l.startRecordingIfDue(now)
		if l.shouldStop(now) {
			break
		}
		l.fireTimers(now)
		l.fireQUICTimers(now)
		l.fireGRPCTimers(now)
		l.sched.dispatch(l, now)
		l.advanceSeconds(now)
		if now-l.lastScan >= l.scanEvery {
			l.scanTimeouts(now)
			l.lastScan = now
		}
		var err error
		if l.e.cfg.OwnThreads {
			l.events, err = l.poller.WaitOwnThread(l.events[:0], l.waitTimeout(now))
		} else {
			l.events, err = l.poller.Wait(l.events[:0], l.waitTimeout(now))
		}
		if err != nil {
			break // the poller itself failed; nothing more can be measured
		}
		now = l.e.now()
		l.rx.turn(l.e)
		for i, ev := range l.events {
			if i > 0 {
				// The connections before took time: each one's reads and
				// requests are timed when they happen, not when the wait
				// ended (at a hundred busy connections a turn, that is
				// milliseconds).
				now = l.e.now()
			}
			if int(ev.FD) < len(l.byFD) {
				if c := l.byFD[ev.FD]; c != nil {
					l.handle(c, ev.Flags, now)
				}
			}
		}
		l.finishHandshakes(now)
	}
	l.stoppedAt = now
	if l.recording {
		l.flushSecond(true)
	}
}

func (l *loop) startRecordingIfDue(now int64) {
	if l.recording {
		return
	}
	e := l.e
	start := e.measureStart.Load()
	if start < 0 {
		warm := int64(e.cfg.Warmup)
		if now < warm {
			return
		}
		// A run at thousands of connections measures the ramp, not the
		// server, unless it waits for every connection to be up.
		waitForConns := !e.cfg.DisableKeepAlive // short connections have no ramp to wait out
		if waitForConns && e.connectedOnce.Load() < int64(e.cfg.Connections) && now < warm+int64(e.cfg.Timeout) {
			return
		}
		if e.measureStart.CompareAndSwap(-1, now) {
			// The others may sleep up to maxWait: they start measuring
			// now, not when they next wake.
			for _, o := range e.loops {
				if o != l {
					o.wake()
				}
			}
		}
		start = e.measureStart.Load()
	}
	if now < start {
		return
	}
	l.recording = true
	for _, c := range l.conns {
		if e.cfg.Requests > 0 {
			// A run of N requests counts exactly the N it sends; a timed run
			// counts every response within its window, as wrk does.
			c.uncounted = c.inflight()
		}
		if e.cfg.Warmup == 0 {
			l.sched.begin(c, start) // nothing was sent yet: the schedule begins now
		}
	}
	defer func() {
		// Connections that waited for the start (no warmup) begin now.
		for _, c := range l.conns {
			if c.state == stActive && c.inflight() == 0 {
				l.refill(c, now)
			}
		}
	}()
	l.stats.reset()
	l.eps.reset()
	l.sec, l.secReq, l.secErr, l.secBytes = 0, 0, 0, 0
	l.secHist.Reset()
}

func (l *loop) shouldStop(now int64) bool {
	e := l.e
	switch {
	case e.stop.Load():
		return true
	case e.measureEnd() > 0 && now >= e.measureEnd():
		return true
	case l.recording && !e.budgetLeft() && l.inflight == 0:
		return true
	case l.inflight == 0 && l.sched.exhausted(l):
		return true
	}
	return false
}

// waitTimeout is how long the poller may sleep: until the next timer, the
// start or end of measurement, or the housekeeping interval.
func (l *loop) waitTimeout(now int64) time.Duration {
	until := now + int64(maxWait)
	if c := l.timers.peek(); c != nil {
		until = min(until, c.at)
	}
	if h := l.qtimers.peek(); h != nil {
		until = min(until, h.qat)
	}
	if at, ok := l.gtimers.next(); ok {
		until = min(until, at)
	}
	if start := l.e.measureStart.Load(); !l.recording && start >= 0 {
		until = min(until, start)
	}
	if end := l.e.measureEnd(); end > 0 {
		until = min(until, end)
	}
	if at := l.sched.nextDue(l, now); at >= 0 {
		until = min(until, at)
	}
	if until <= now {
		return 0
	}
	return time.Duration(until - now)
}

// wait parks c in the timer heap until at.
func (l *loop) wait(c *conn, at int64) {
	c.at = at
	l.timers.push(c)
}

func (l *loop) fireTimers(now int64) {
	for {
		c := l.timers.peek()
		if c == nil || c.at > now {
			return
		}
		l.timers.pop()
		switch c.state {
		case stClosed, stBackoff:
			l.connect(c, now)
		case stActive:
			l.refill(c, now)
		}
	}
}

// advanceSeconds hands every finished second of the timeline to the collector.
func (l *loop) advanceSeconds(now int64) {
	if !l.recording {
		return
	}
	for sec := int((now - l.e.measureStart.Load()) / int64(time.Second)); l.sec < sec; {
		l.flushSecond(false)
	}
}

func (l *loop) flushSecond(final bool) {
	if final && l.secReq == 0 && l.secErr == 0 {
		return // an empty sliver of a second at the end says nothing
	}
	col := l.e.collector
	col.in <- interval{loop: l.id, second: l.sec, requests: l.secReq, errors: l.secErr, bytesRead: l.secBytes, hist: l.secHist, live: l.liveCounts()}
	l.sec++
	l.secReq, l.secErr, l.secBytes = 0, 0, 0
	if !final {
		l.secHist = col.getHist(l.id)
	}
}

// scanTimeouts fails connections whose connect or oldest request has
// waited longer than the Timeout.
func (l *loop) scanTimeouts(now int64) {
	limit := int64(l.e.cfg.Timeout)
	for i := 0; i < len(l.watch); {
		c := l.watch[i]
		if c.state == stActive && c.inflight() > 0 {
			l.expire(c, now-limit, now)
		}
		switch {
		case (c.state == stConnecting || c.state == stHandshaking && c.h3 != nil) && now-c.connectStart > limit:
			l.connectFailed(c, result.ErrConnectTimeout, now)
		case c.state == stActive && c.inflight() > 0 && now-c.since > limit:
			kind := result.ErrReadTimeout
			if c.ses.stalled() {
				kind = result.ErrFlowStall // the request never got its window
			}
			l.fail(c, kind, now)
		case c.state == stActive && c.inflight() == 0 && c.ses.room() == 0 && !c.ses.closing() && now-c.connectStart > limit:
			// Connected but never ready to carry a request: an HTTP/2
			// server that sent no SETTINGS, a WebSocket server that did
			// not answer the upgrade. Counted as a failed connect, so
			// that a run of -n requests still ends.
			kind := result.ErrProtocol
			if ws, ok := c.ses.(*wsSession); ok {
				kind = result.ErrUpgrade
				ws.st.refused(0)
			}
			l.connectFailed(c, kind, now)
		}
		if needsWatch(c) {
			i++
			continue
		}
		c.watched = false
		last := len(l.watch) - 1
		l.watch[i], l.watch[last] = l.watch[last], nil
		l.watch = l.watch[:last]
	}
}

// watchConn puts c on the timeout scan's list, once: when it starts to
// connect and whenever it sends a request.
func (l *loop) watchConn(c *conn) {
	if !c.watched {
		c.watched = true
		l.watch = append(l.watch, c)
	}
}

// needsWatch reports whether the timeout scan must keep visiting c: a
// connect or handshake under way, requests in flight, or a session not
// yet ready to carry one (an upgrade or SETTINGS awaited). A connection
// that is none of these can time out only once it connects again or
// sends, which put it back (watchConn).
//
// An HTTP/2 connection stays on the list: its server may take its room
// away with a SETTINGS frame (SETTINGS_MAX_CONCURRENT_STREAMS 0) while it
// is idle, with no send to put it back; such runs have few connections.
func needsWatch(c *conn) bool {
	switch c.state {
	case stConnecting, stHandshaking:
		return true
	case stActive:
		return c.inflight() > 0 || c.ses.multiplexed() || (c.ses.room() == 0 && !c.ses.closing())
	}
	return false
}

// expire has c's session give up on the requests sent before cutoff that
// it can fail alone (HTTP/2's streams), and writes what it says to the
// server (RST_STREAM) with whatever the schedule sends next.
func (l *loop) expire(c *conn, cutoff, now int64) {
	n := c.inflight()
	l.dv = delivery{l: l, c: c, now: now}
	c.ses.expire(cutoff, &l.dv)
	if c.inflight() < n {
		c.since = now
		l.refill(c, now)
	}
}

// countError records n failures of one kind.
func (l *loop) countError(kind result.ErrorKind, n int) {
	if !l.recording || n <= 0 {
		return
	}
	l.stats.errors[kind] += int64(n)
	l.secErr += int64(n)
}

// close releases the loop's sockets and poller.
func (l *loop) close() {
	l.closeHandshakes()
	for _, c := range l.conns {
		if c.fd >= 0 {
			closeSocket(c.fd)
			c.fd = -1
		}
	}
	l.poller.Close()
}
