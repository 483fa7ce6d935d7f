package load

import (
	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/result"
)

// h2Codes is how many HTTP/2 error codes are counted one by one; codes
// past RFC 9113's are counted together in the last entry.
const h2Codes = 16

// h2stats is a loop's HTTP/2 counters: fixed arrays, so counting a reset
// or a GOAWAY allocates nothing.
type h2stats struct {
	resets  [h2Codes]int64
	goAways [h2Codes]int64
	retried int64
}

// codeIndex returns code's entry in h2stats' arrays.
func codeIndex(code uint32) int { return int(min(code, h2Codes-1)) }

// codeName names the entry i of h2stats' arrays.
func codeName(i int) string {
	if i == h2Codes-1 {
		return "other"
	}
	return http2.ErrCode(i).String()
}

// addTo adds s to h.
func (s *h2stats) addTo(h *result.HTTP2) {
	for i := range h2Codes {
		if n := s.resets[i]; n > 0 {
			h.Resets[codeName(i)] += n
		}
		if n := s.goAways[i]; n > 0 {
			h.GoAways[codeName(i)] += n
		}
	}
	h.Retried += s.retried
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
	if l.feeder != nil {
		d.abandon(x, result.ErrGoAway)
		return
	}
	// Still in flight for the loop (l.inflight), so that the run waits for
	// it; resend takes it out again.
	c.retries = append(c.retries, x)
	if l.recording {
		l.stats.h2.retried++
	}
}

// goAway counts the peer's GOAWAY.
func (d *delivery) goAway(code uint32) {
	if d.l.recording {
		d.l.stats.h2.goAways[codeIndex(code)]++
	}
}

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

// dropRetries gives up on c's requests waiting to be retried, when c
// cannot connect again: they count as lost to the GOAWAY, so that a run
// whose server went away still ends.
func (l *loop) dropRetries(c *conn) {
	l.inflight -= len(c.retries)
	l.countError(result.ErrGoAway, len(c.retries))
	c.retries = c.retries[:0]
}
