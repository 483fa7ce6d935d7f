package load

import "github.com/gust-http/gust/result"

// delivery is the sink a session delivers to while the loop feeds it: the
// loop, the connection being read, and the time of the read. It lives in
// the loop, so passing it as a sink allocates nothing.
type delivery struct {
	l   *loop
	c   *conn
	now int64
}

// send encodes one request for c and records it as in flight, sent (or
// meant to be sent) at sent.
func (l *loop) send(c *conn, req *request, sent int64, meta uint32, now int64) {
	if c.inflight() == 0 {
		c.since = now
	}
	c.wbuf = c.ses.send(c.wbuf, req, exchange{sent: sent, meta: meta})
	l.inflight++
}

// write sends c's encoded requests, in one write if the socket takes them.
func (l *loop) write(c *conn, now int64) {
	c.woff, c.wleft = 0, len(c.wbuf)
	l.flush(c, now)
}

// feed hands received bytes to c's session; false means c failed and was
// closed.
func (l *loop) feed(c *conn, data []byte, now int64) bool {
	l.dv = delivery{l: l, c: c, now: now}
	kind, ok := c.ses.feed(data, &l.dv)
	if !ok {
		l.fail(c, kind, now)
	}
	return ok
}

// recordLateness counts how far behind its intended time a request went out.
func (l *loop) recordLateness(late int64) {
	if !l.recording {
		return
	}
	l.stats.lateness.RecordValue(usec(late))
	if late > int64(result.LateThreshold) {
		l.stats.late++
	}
}

// complete records the response to x.
func (d *delivery) complete(x exchange, status int) {
	l, c, now := d.l, d.c, d.now
	l.inflight--
	if c.inflight() > 0 {
		c.since = now
	}
	if !l.recording {
		return
	}
	lat := usec(now - x.sent)
	if l.feeder != nil {
		l.eps.record(x.meta, lat, status)
	}
	if c.uncounted > 0 {
		c.uncounted-- // sent before measurement began
		return
	}
	l.stats.latency.RecordValue(lat)
	l.secHist.RecordValue(lat)
	l.stats.requests++
	l.secReq++
	l.stats.status[status]++
}

// abandon counts x as failed while its connection goes on.
func (d *delivery) abandon(x exchange, kind result.ErrorKind) {
	l := d.l
	l.inflight--
	l.countError(kind, 1)
	if l.recording && l.feeder != nil {
		l.eps.fail(x.meta)
	}
}

// reply queues bytes the session writes back on its own.
func (d *delivery) reply(p []byte) {
	c := d.c
	if c.wleft == 0 {
		c.wbuf, c.woff = c.wbuf[:0], 0
	}
	c.wbuf = append(c.wbuf[:c.woff+c.wleft], p...)
	c.wleft += len(p)
}
