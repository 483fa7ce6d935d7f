package load

import (
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/result"
)

// connect opens a new socket for c and registers it with the poller.
func (l *loop) connect(c *conn, now int64) {
	if l.e.stop.Load() {
		return
	}
	fd, err := openSocket(l.sa)
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
	c.fd = fd
	c.state = stConnecting
	c.connectStart = now
	l.live++
}

// handle reacts to readiness of c's socket.
func (l *loop) handle(c *conn, flags uint32, now int64) {
	if c.state == stConnecting {
		if flags&(poll.Writable|poll.Hangup) == 0 {
			return
		}
		if err := connectError(c.fd); err != nil {
			l.connectFailed(c, classifyConnect(err), now)
			return
		}
		l.connected(c, now)
	}
	if c.state != stActive {
		return
	}
	if flags&poll.Writable != 0 && c.wleft > 0 {
		if !l.flush(c, now) {
			return
		}
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.read(c, flags, now)
	}
}

func (l *loop) connected(c *conn, now int64) {
	c.state = stActive
	c.backoff = 0
	if !c.everConnected {
		c.everConnected = true
		l.e.connectedOnce.Add(1)
	}
	// Connects count from the start, ramp included: the ramp is when most
	// keep-alive connections are made.
	l.stats.connects++
	l.stats.connect.RecordValue(usec(now - c.connectStart))
	l.refill(c, now)
}

// connectFailed counts a failed connect and retries after a back-off.
func (l *loop) connectFailed(c *conn, kind result.ErrorKind, now int64) {
	l.dropSocket(c)
	n := 1
	if l.feeder != nil && l.live == 0 {
		// No connection is left to carry the requests that are due: they
		// fail, so a replay ends even when the target stays down.
		n = max(l.failDue(now), 1)
	}
	l.countError(kind, n)
	if l.recording && l.feeder == nil {
		// The attempt used up a request, so a run bounded by a request count
		// ends even when the target stays down.
		l.e.claim()
	}
	c.state = stBackoff
	c.backoff = min(max(c.backoff*2, minBackoff), maxBackoff)
	l.wait(c, now+c.backoff)
}

// refill sends as many requests as the model allows: up to Pipeline in
// flight in the closed model; in the open model, those whose intended time
// has come. Requests in one refill go out in a single write.
func (l *loop) refill(c *conn, now int64) {
	if l.feeder != nil {
		l.refillSource(c, now)
		return
	}
	if c.wleft > 0 || c.state != stActive {
		return
	}
	cfg := &l.e.cfg
	k := 0
	if cfg.Rate == 0 {
		start := now
		if cfg.DisableKeepAlive {
			start = c.connectStart // the user waits for the connect too
		}
		for c.inflight < len(c.sent) && l.mayStart() {
			if c.inflight == 0 {
				c.since = now
			}
			c.pushSent(start)
			k++
		}
	} else {
		for c.inflight < len(c.sent) && c.next <= now && l.mayStart() {
			if l.recording {
				late := now - c.next
				l.stats.lateness.RecordValue(usec(late))
				if late > int64(result.LateThreshold) {
					l.stats.late++
				}
			}
			if c.inflight == 0 {
				c.since = now
			}
			c.pushSent(c.next)
			c.next += l.interval
			k++
		}
		if c.inflight < len(c.sent) && c.next > now {
			l.wait(c, c.next)
		}
	}
	if k == 0 {
		return
	}
	l.inflight += k
	c.woff, c.wleft = 0, k*l.reqLen
	l.flush(c, now)
}

// mayStart reports whether another request may be sent: always during
// warmup, otherwise while the request budget lasts.
func (l *loop) mayStart() bool {
	if !l.recording {
		// Before measurement: send only if a warmup was asked for; without
		// one, connections wait until every one is up.
		return l.e.cfg.Warmup > 0
	}
	return l.e.claim()
}

// flush writes the pending request batch; false means c failed and was closed.
func (l *loop) flush(c *conn, now int64) bool {
	for c.wleft > 0 {
		n, err := writeSocket(c.fd, c.out[c.woff:c.woff+c.wleft])
		if n > 0 {
			c.woff += n
			c.wleft -= n
			if l.recording {
				l.stats.bytesWritten += int64(n)
			}
		}
		if err != nil {
			if isWouldBlock(err) {
				return true // the poller says when to go on
			}
			if isInterrupted(err) {
				continue
			}
			l.fail(c, result.ErrReset, now)
			return false
		}
	}
	return true
}

// read drains c's socket and parses what arrived.
func (l *loop) read(c *conn, flags uint32, now int64) {
	for {
		n, err := readSocket(c.fd, l.buf)
		if n > 0 {
			if l.recording {
				l.stats.bytesRead += int64(n)
				l.secBytes += int64(n)
			}
			if !l.feed(c, l.buf[:n], now) {
				return
			}
			// A short read drained the socket; edge-triggered polling reports
			// the next arrival. After a hang-up, read on to see the EOF.
			if n < len(l.buf) && flags&poll.Hangup == 0 {
				break
			}
			continue
		}
		if err == nil { // end of stream
			l.peerClosed(c, now)
			return
		}
		if isWouldBlock(err) {
			break
		}
		if isInterrupted(err) {
			continue
		}
		l.fail(c, result.ErrReset, now)
		return
	}
	if c.closeAfter && c.inflight == 0 {
		l.reopen(c, now)
		return
	}
	l.refill(c, now)
}

// feed parses received bytes in place, completing responses as they end.
// It returns false if c was closed.
func (l *loop) feed(c *conn, data []byte, now int64) bool {
	if len(c.pending) > 0 {
		c.pending = append(c.pending, data...)
		data = c.pending
	}
	for len(data) > 0 {
		switch c.phase {
		case phHead:
			if c.inflight == 0 || c.closeAfter {
				l.fail(c, result.ErrProtocol, now) // bytes nobody asked for
				return false
			}
			n, err := http1.ParseResponseHead(data, maxResponseHead, &c.head)
			if err == http1.ErrIncomplete {
				c.pending = append(c.pending[:0], data...)
				return true
			}
			if err != nil {
				l.fail(c, result.ErrProtocol, now)
				return false
			}
			data = data[n:]
			if c.head.StatusCode < 200 {
				if c.head.StatusCode == 101 {
					l.fail(c, result.ErrProtocol, now) // an upgrade we never asked for
					return false
				}
				continue // interim response: the final one follows
			}
			c.status = c.head.StatusCode
			// Without keep-alive the request said close: close even if the
			// server does not.
			c.closeAfter = c.head.Close || l.e.cfg.DisableKeepAlive
			switch c.head.Body(c.headReq) {
			case http1.BodyNone:
				l.complete(c, now)
			case http1.BodyLength:
				c.phase, c.remaining = phLength, c.head.ContentLength
			case http1.BodyChunked:
				c.phase = phChunked
				c.chunk.Reset()
			case http1.BodyUntilClose:
				c.phase = phUntilClose
				c.closeAfter = true
			}
		case phLength:
			k := int64(len(data))
			if k > c.remaining {
				k = c.remaining
			}
			data = data[k:]
			c.remaining -= k
			if c.remaining == 0 {
				l.complete(c, now)
			}
		case phChunked:
			n, _, done, err := c.chunk.Decode(data)
			if err != nil {
				l.fail(c, result.ErrProtocol, now)
				return false
			}
			data = data[n:]
			if done {
				l.complete(c, now)
			}
		case phUntilClose:
			data = data[len(data):]
		}
	}
	c.pending = c.pending[:0]
	return true
}

// complete records the oldest in-flight request's response.
func (l *loop) complete(c *conn, now int64) {
	i := c.first
	sent := c.popSent()
	l.inflight--
	c.phase = phHead
	if c.inflight > 0 {
		c.since = now
	}
	if c.meta != nil {
		l.completeSource(c, i, sent, now)
	}
	if !l.recording {
		return
	}
	if c.uncounted > 0 {
		c.uncounted-- // sent before measurement began
		return
	}
	lat := usec(now - sent)
	l.stats.latency.RecordValue(lat)
	l.secHist.RecordValue(lat)
	l.stats.requests++
	l.secReq++
	l.stats.status[c.status]++
}

// completeSource is complete's part for a request from a Source (the one
// that was at sent[i]): it is counted for its endpoint, and the HEAD flag
// moves on to the next request in flight.
func (l *loop) completeSource(c *conn, i int, sent, now int64) {
	if c.inflight > 0 {
		c.headReq = c.meta[c.first]&metaHead != 0
	}
	if l.recording {
		l.eps.record(c.meta[i], usec(now-sent), c.status)
	}
}

// peerClosed handles the end of c's stream.
func (l *loop) peerClosed(c *conn, now int64) {
	if c.phase == phUntilClose {
		l.complete(c, now)
	}
	// Requests still waiting will never be answered on this connection.
	l.countError(result.ErrClosed, c.inflight)
	l.failInflight(c)
	l.reopen(c, now)
}

// fail counts c's in-flight requests (at least one) as failed and reopens it.
func (l *loop) fail(c *conn, kind result.ErrorKind, now int64) {
	l.countError(kind, max(c.inflight, 1))
	l.failInflight(c)
	l.reopen(c, now)
}

// dropSocket closes c's socket and forgets its in-flight requests.
func (l *loop) dropSocket(c *conn) {
	l.timers.remove(c)
	if c.state == stConnecting || c.state == stActive {
		l.live--
	}
	if c.fd >= 0 {
		l.byFD[c.fd] = nil
		closeSocket(c.fd)
	}
	l.inflight -= c.inflight
	c.resetIO()
	c.state = stClosed
}

// reopen replaces c's socket with a new connection: at once in the closed
// model, at the next intended send time in the open model.
func (l *loop) reopen(c *conn, now int64) {
	l.dropSocket(c)
	if l.recording && !l.e.cfg.DisableKeepAlive {
		l.stats.reconnects++
	}
	if l.recording && !l.e.budgetLeft() || l.feeder != nil && l.drained() {
		return // nothing left to send
	}
	if l.feeder == nil && l.e.cfg.Rate > 0 && c.next > now {
		l.wait(c, c.next)
		return
	}
	l.connect(c, now)
}
