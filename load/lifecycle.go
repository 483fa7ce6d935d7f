package load

import "github.com/gust-http/gust/result"

// A connection's life: connect, ready, its round trips (roundtrip.go),
// and on an error or the server's close, fail and reopen.

// connect opens a new socket for c and registers it with the poller.
func (l *loop) connect(c *conn, now int64) {
	if l.e.stop.Load() {
		return
	}
	if c.paced {
		c.paced = false // its slot has come
	} else if at := l.paceFor(c).slot(now); at > now {
		c.paced = true
		l.wait(c, at) // a timer brings it back (fireTimers)
		return
	}
	open := openSocket
	if c.h3 != nil {
		open = openUDPSocket
	}
	fd, err := open(l.sa, l.sources.next())
	if err == nil {
		if err = l.poller.Add(fd); err != nil {
			closeSocket(fd)
		}
	}
	if err != nil {
		l.connectFailed(c, classifyConnect(err), now)
		return
	}
	for fd >= len(l.byFD) {
		l.byFD = append(l.byFD, make([]*conn, len(l.byFD)+64)...)
	}
	l.byFD[fd] = c
	if c.h3 != nil {
		l.connectQUIC(c, fd, now)
		return
	}
	c.attach(fd)
	if l.rx.on {
		enableRXStamps(fd) // without them (an error), reads are timed when made
	}
	c.state = stConnecting
	c.connectStart = now
	l.watchConn(c)
	l.live++
}

// connected counts a finished TCP connect and makes c ready, or starts its
// TLS handshake.
func (l *loop) connected(c *conn, now int64) {
	c.backoff = 0
	// Connects count from the start, ramp included: the ramp is when most
	// keep-alive connections are made.
	l.stats.connects++
	l.stats.connect.RecordValue(usec(now - c.connectStart))
	if l.e.tlsConfig != nil {
		l.startHandshake(c, now)
		return
	}
	l.ready(c, now)
}

// ready starts c's session once its transport can carry requests. A TLS
// connection gets here when its handshake is done (tls_loop.go): until
// then it stays stHandshaking, and is not counted as connected.
func (l *loop) ready(c *conn, now int64) {
	c.state = stActive
	if !c.everConnected {
		c.everConnected = true
		l.e.connectedOnce.Add(1)
	}
	// A preface (HTTP/2) goes out with the first requests.
	l.fillAndWrite(c, c.ses.start(c.wbuf[:0]), now)
}

// connectFailed counts a failed connect and retries after a back-off.
func (l *loop) connectFailed(c *conn, kind result.ErrorKind, now int64) {
	l.dropSocket(c)
	l.dropRetries(c)
	l.countError(kind, l.sched.connectFailed(l, now))
	c.state = stBackoff
	c.backoff = min(max(c.backoff*2, minBackoff), maxBackoff)
	l.wait(c, now+c.backoff)
}

// peerClosed handles the end of c's stream.
func (l *loop) peerClosed(c *conn, now int64) {
	l.dv = delivery{l: l, c: c, now: now}
	c.ses.eof(&l.dv)
	if l.takeBackUnanswered(c) {
		l.reopen(c, now)
		return
	}
	// Requests still waiting will never be answered on this connection.
	l.countError(result.ErrClosed, c.inflight())
	l.failInflight(c)
	l.reopen(c, now)
}

// fail counts c's in-flight requests (at least one) as failed and reopens it.
// A connection that fails with nothing in flight (an HTTP/2 server whose
// preface is wrong) uses up a request, as a failed connect does, so that a
// run of -n requests ends even when every connection fails.
func (l *loop) fail(c *conn, kind result.ErrorKind, now int64) {
	if kind == result.ErrReset && l.takeBackUnanswered(c) {
		l.reopen(c, now)
		return
	}
	if c.inflight() == 0 && l.recording {
		l.e.claim()
	}
	l.countError(kind, max(c.inflight(), 1))
	l.failInflight(c)
	l.reopen(c, now)
}

// failInflight counts c's in-flight requests as errors of their endpoints.
func (l *loop) failInflight(c *conn) {
	if !l.perEndpoint || !l.recording {
		return
	}
	for i := range c.inflight() {
		l.eps.fail(c.ses.at(i).meta)
	}
}

// dropSocket closes c's socket and forgets its in-flight requests.
func (l *loop) dropSocket(c *conn) {
	l.timers.remove(c)
	if c.h3 != nil {
		l.qtimers.remove(c.h3)
		if c.fd >= 0 {
			c.h3.closeConn()
		}
	}
	if c.state == stConnecting || c.state == stHandshaking || c.state == stActive {
		l.live--
	}
	if c.tls != nil {
		c.tls.Release() // before the socket is closed: it stops a handshake
	}
	if c.fd >= 0 {
		l.byFD[c.fd] = nil
		closeSocket(c.fd)
	}
	l.inflight -= c.inflight()
	c.resetIO()
	c.state = stClosed
}

// reopen replaces c's socket with a new connection: at once, or when the
// schedule next has a request for it.
func (l *loop) reopen(c *conn, now int64) {
	l.dropSocket(c)
	if l.recording && !l.e.cfg.DisableKeepAlive {
		l.stats.reconnects++
	}
	if len(c.retries) == 0 && (l.recording && !l.e.budgetLeft() || l.sched.exhausted(l)) {
		return // nothing left to send
	}
	if at := l.sched.reconnectAt(c, now); at > now {
		l.wait(c, at)
		return
	}
	l.connect(c, now)
}
