package load

import "github.com/gust-http/gust/result"

// Retries: requests sent back unprocessed go out again before any new
// request, on the conn's next socket, still charged from their first
// intended time. Three kinds come back: those an HTTP/2 server's GOAWAY
// returned and WebSocket messages in flight when the server closed with
// 1001 or 1012 (sink.retry queues them), and HTTP/1.1 requests whose reused
// keep-alive connection closed before a byte of their answer arrived
// (takeBackUnanswered): the server closed it as they were sent, which is
// what every graceful shutdown risks, and like browsers and net/http's
// Transport gust load sends an idempotent one again. All are counted as
// retried in the report, never hidden.

// resend sends c's requests taken back, before any new one, as long as
// the session has room; they were claimed when first sent.
func (l *loop) resend(c *conn, now int64) {
	for len(c.retries) > 0 && c.ses.room() > 0 {
		x := c.retries[0]
		c.retries = c.retries[:copy(c.retries, c.retries[1:])]
		l.inflight-- // counted again by send
		l.send(c, &l.e.target.req, x.sent, x.meta, now)
	}
}

// dropRetries gives up on c's requests waiting to be retried, when c
// cannot connect again: they count as lost to the GOAWAY (HTTP/2) or to
// the closed connection (HTTP/1.1, WebSocket), so that a run whose server
// went away still ends.
func (l *loop) dropRetries(c *conn) {
	kind := result.ErrClosed
	if _, ok := c.ses.(*h2session); ok {
		kind = result.ErrGoAway
	}
	l.inflight -= len(c.retries)
	l.countError(kind, len(c.retries))
	c.retries = c.retries[:0]
}

// takeBackUnanswered queues c's HTTP/1.1 requests in flight for a retry
// when its socket ended (closed or reset) before any byte of their
// answers arrived, on a connection that had answered before, and the
// run's one request is idempotent. It reports whether it took them; the
// caller then reopens c without counting an error. A fresh connection
// that ends unanswered is an error as before, so a server that never
// answers cannot make a request go round forever. Requests from a Source
// are not kept (as with GOAWAY), so they are not retried.
func (l *loop) takeBackUnanswered(c *conn) bool {
	s, ok := c.ses.(*h1session)
	if !ok || !c.answered || s.inflight() == 0 || !s.untouched() || l.perEndpoint || !l.e.target.idempotent {
		return false
	}
	// The oldest c.uncounted were sent before measurement began: they
	// are let go, not sent again as measured requests (a run of -n N
	// counts exactly N).
	for ; c.uncounted > 0 && s.inflight() > 0; c.uncounted-- {
		s.pop()
		l.inflight--
	}
	n := s.inflight()
	for s.inflight() > 0 {
		// Still in flight for the loop (l.inflight), so that the run
		// waits for them; resend takes them out again.
		c.retries = append(c.retries, s.pop())
	}
	if l.recording {
		l.stats.retried += int64(n)
	}
	return true
}

// idempotentMethod reports whether a request with method may be sent
// again after it may have reached the server (RFC 9110 section 9.2.2);
// "" is GET.
func idempotentMethod(method string) bool {
	switch method {
	case "", "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	return false
}
