//go:build linux

package server

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/transport"
)

// closeAfterResponse closes c once its last response is written: at once
// if the client has nothing left to send, else with a lingering close (see
// linger.go). The loop owns c.
func (l *loop) closeAfterResponse(c *conn) {
	if !c.linger || c.hijacked.Load() || l.e.stopping.Load() {
		l.closeConn(c)
		return
	}
	c.linger, c.closing = false, false
	c.release()
	c.closeNotify() // TLS: the client reads the end of the stream, not a truncation
	if unix.Shutdown(c.fd, unix.SHUT_WR) != nil {
		l.closeConn(c)
		return
	}
	c.lingering = true
	c.lingerLeft = lingerBytes
	c.state.Store(stIdle) // a worker may have given it back busy: the loop's now
	l.setDeadline(c, l.e.now()+int64(lingerTime))
	l.discard(c)
}

// lingerPace is a loop's share of lingering closes: the connections with
// bytes maybe left to discard, and the bytes the loop may still read for
// them. Reads are paced by time, not by turns: when the loop turned for
// every readiness, a flood of endless uploads was read faster the less
// else the loop had to do, and took most of it (see lingerRate).
type lingerPace struct {
	lingerQ, lingerRequeue []*conn
	lingerBudget           int64 // bytes
	lingerRefilled         int64 // when the budget was last topped up (loop clock ns)
	lingerWakeAt           int64 // when the budget allows the next read, if some wait; else 0
}

const (
	// lingerRate is how many bytes a second a loop reads and drops for all
	// its lingering connections together. Measured beside 50 endless
	// uploads (gust bench big-bodies-50, docs/BENCHMARKS.md): with 4 KiB
	// per connection per turn the other clients kept 16-64% of their req/s
	// on 2026-11-25, with this rate 67-112% (medians 49% and 93%). A rate
	// bounds what the flood can take whatever the load. A lone client's
	// 2 MB upload still drains in tens of milliseconds; beside N others
	// lingering, each gets 1/(N+1) of the rate, and one whose upload does
	// not end within lingerTime is closed with bytes unread.
	lingerRate = 64 << 20
	// lingerChunk is one read of a lingering connection: large enough that
	// the system call is not most of the cost, small enough that many
	// lingering connections share the budget in turn.
	lingerChunk = 16 << 10
	// lingerBurst bounds the budget an idle loop saves up.
	lingerBurst = 16 * lingerChunk
)

// discard queues a lingering connection whose socket has bytes to be
// read and dropped at the end of the turn (discardSome).
func (l *loop) discard(c *conn) {
	if !c.lingerQueued {
		c.lingerQueued = true
		l.lingerQ = append(l.lingerQ, c)
	}
}

// discardSome reads the queued lingering connections in turn, a chunk
// each, as far as the budget goes, until each would block. A connection is
// closed at the client's end of stream, past lingerBytes, or on an error.
// Every read lands in the loop's buffer, so a lingering plain connection
// holds no memory of its own (a TLS one may hold a partial record).
func (l *loop) discardSome(now int64) {
	l.lingerBudget = min(lingerBurst, l.lingerBudget+min(now-l.lingerRefilled, int64(time.Second))*lingerRate/int64(time.Second))
	l.lingerRefilled = now
	l.lingerWakeAt = 0
	if len(l.lingerQ) == 0 {
		return
	}
	q, i := l.lingerQ, 0
	requeue := l.lingerRequeue[:0]
	for ; i < len(q) && l.lingerBudget >= lingerChunk; i++ {
		c := q[i]
		q[i] = nil
		if c.state.Load() != stIdle {
			c.lingerQueued = false // closed meanwhile
			continue
		}
		want := min(lingerChunk, len(l.seat.buf), int(c.lingerLeft))
		n, err := c.t.Read(l.seat.buf[:want])
		switch {
		case n > 0:
			l.lingerBudget -= int64(n)
			l.srv.counters.bytesIn.Add(int64(n))
			if c.lingerLeft -= int32(n); c.lingerLeft <= 0 {
				c.lingerQueued = false
				l.closeConn(c)
			} else {
				// Read again, even after a short read: the client's end
				// of stream may have been announced with its last bytes,
				// and no event would come for it.
				requeue = append(requeue, c)
			}
		case err == transport.ErrWouldBlock:
			c.lingerQueued = false
		default:
			c.lingerQueued = false
			l.closeConn(c) // io.EOF: the client has read the response and closed
		}
	}
	// Those not reached go first next time, then those read now.
	rest := copy(q, q[i:])
	clear(q[rest:])
	l.lingerQ = append(q[:rest], requeue...)
	clear(requeue)
	l.lingerRequeue = requeue[:0]
	if len(l.lingerQ) > 0 {
		l.lingerWakeAt = now + (lingerChunk-l.lingerBudget)*int64(time.Second)/lingerRate
	}
}
