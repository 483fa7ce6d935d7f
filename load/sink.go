package load

import "github.com/gust-http/gust/result"

// The sink is what a session calls back while the loop feeds it: what
// happens to an exchange when its response completes, it fails alone, the
// peer resets it or takes it back, and what the session writes back on
// its own. The loop's delivery implements it.

// sink is where a session delivers what it parsed: the loop, for the
// connection the session belongs to.
type sink interface {
	// complete records the response to x with its status code (0 for a
	// WebSocket message, which has none).
	complete(x exchange, status int)
	// abandon counts x as failed with kind while the connection goes on
	// (an HTTP/2 stream reset).
	abandon(x exchange, kind result.ErrorKind)
	// reply queues bytes the protocol must write back on its own, such
	// as HTTP/2's SETTINGS ACK, WINDOW_UPDATE and PING ACK.
	reply(p []byte)
	// reset counts x as failed by the peer's stream reset with its error
	// code (HTTP/2's RST_STREAM); the connection goes on.
	reset(x exchange, code uint32)
	// retry takes x back: the peer promised it never processed it
	// (HTTP/2's GOAWAY below its stream) or went away before answering
	// (a WebSocket closed with 1001 or 1012), so it is sent again, on a
	// new connection, charged from the time it was first meant to go.
	retry(x exchange)
	// goAway counts the peer's GOAWAY with its error code.
	goAway(code uint32)
	// streamHead, streamed and streamEnd time a response read as a
	// stream: its head, n of its events arriving (last: when the one
	// before them did, 0 for none; it returns the time now), its end.
	streamHead(x exchange, sse bool)
	streamed(x exchange, n int, last int64) int64
	streamEnd(x exchange, events int64)
	// grpcEnd records the end of gRPC call x: its status code (0 to 16)
	// and the response messages it held.
	grpcEnd(x exchange, code int, msgs int64)
}

// maxUnansweredRetries bounds how many connections in a row may close
// with 1001 before answering a WebSocket message, which is sent again on
// each.
const maxUnansweredRetries = 3

// delivery is the sink a session delivers to while the loop feeds it: the
// loop, the connection being read, and the time of the read. It lives in
// the loop, so passing it as a sink allocates nothing.
type delivery struct {
	l   *loop
	c   *conn
	now int64
}

// complete records the response to x.
func (d *delivery) complete(x exchange, status int) {
	l, c, now := d.l, d.c, d.now
	l.inflight--
	c.answered, c.unanswered = true, 0
	if c.inflight() > 0 {
		c.since = now
	}
	if !l.recording {
		return
	}
	lat := usec(now - x.sent)
	if l.perEndpoint {
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
	if status != 0 { // a WebSocket message has none
		l.stats.status[status]++
	}
}

// abandon counts x as failed while its connection goes on.
func (d *delivery) abandon(x exchange, kind result.ErrorKind) {
	l := d.l
	l.inflight--
	l.countError(kind, 1)
	if l.recording && l.perEndpoint {
		l.eps.fail(x.meta)
	}
}

// reset counts x as failed by the peer's RST_STREAM.
func (d *delivery) reset(x exchange, code uint32) {
	if d.l.recording {
		d.l.stats.h2.resets[codeIndex(code)]++
	}
	d.abandon(x, result.ErrStreamReset)
}

// retry queues x to be sent again on c's next connection, still charged
// from its first intended time. A Source's request is not kept, so with
// one x is counted failed instead.
func (d *delivery) retry(x exchange) {
	l, c := d.l, d.c
	if l.perEndpoint {
		d.abandon(x, result.ErrGoAway)
		return
	}
	_, ws := c.ses.(*wsSession)
	if ws && !c.answered {
		// A WebSocket closed before it echoed anything (a connection
		// made while the old server of an upgrade drained, say) is
		// retried a few times in a row, not forever: a server that goes
		// away from every new connection would have the message go round
		// without end.
		if c.unanswered >= maxUnansweredRetries {
			d.abandon(x, result.ErrClosed)
			return
		}
		c.unanswered++
	}
	// Still in flight for the loop (l.inflight), so that the run waits for
	// it; resend takes it out again.
	c.retries = append(c.retries, x)
	if !l.recording {
		return
	}
	if ws || c.h3 != nil { // HTTP/3 has no HTTP2 section to count them in
		l.stats.retried++
	} else {
		l.stats.h2.retried++
	}
}

// goAway counts the peer's GOAWAY.
func (d *delivery) goAway(code uint32) {
	if d.l.recording {
		d.l.stats.h2.goAways[codeIndex(code)]++
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
