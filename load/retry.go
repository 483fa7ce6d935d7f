package load

import "github.com/gust-http/gust/result"

// Retries: requests an HTTP/2 server's GOAWAY sent back unprocessed
// (sink.retry queues them on their conn) go out again before any new
// request, on the conn's next socket, still charged from their first
// intended time.

// resend sends c's requests a GOAWAY returned, before any new one, as long
// as the session has room; they were claimed when first sent.
func (l *loop) resend(c *conn, now int64) {
	for len(c.retries) > 0 && c.ses.room() > 0 {
		x := c.retries[0]
		c.retries = c.retries[:copy(c.retries, c.retries[1:])]
		l.inflight-- // counted again by send
		l.send(c, &l.e.target.req, x.sent, x.meta, now)
	}
}

// dropRetries gives up on c's requests waiting to be retried, when c
// cannot connect again: they count as lost to the GOAWAY, so that a run
// whose server went away still ends.
func (l *loop) dropRetries(c *conn) {
	l.inflight -= len(c.retries)
	l.countError(result.ErrGoAway, len(c.retries))
	c.retries = c.retries[:0]
}
