package main

import (
	"sync"
	"time"

	"github.com/gust-http/gust/internal/sse"
)

// The clocks of /events: the streams of one connection that share an
// interval share one clock, a goroutine and a timer that, at each tick,
// writes the event of every stream of the connection in turn, so that
// an HTTP/2 connection carrying a hundred streams costs one timer, one
// wake-up and (gust/server's Flush posts without waiting, and its loop
// frames what is posted together in one write) about one write a tick,
// not a hundred of each. A stream's events go at its clock's ticks: the
// first at the next tick (at once for a connection's first stream, whose
// clock starts then), then one a tick, so that the gaps are the
// interval (or a little more: the next tick is an interval after this
// one's writes); a stamped event is stamped just before it is written,
// and the truth counts the wait for the first tick in the time to the
// first event. A tick that comes late (the server is busy) is not made
// up. The stamp is taken when the event is handed to the server, which
// writes it within the loop's turn while the loop keeps up; a loop that
// falls behind sends events later than stamped. A write that blocks
// (gust/server's Flush waits once 64 KiB of a stream wait for its
// client's window; net/http's HTTP/2 Flush waits for every write) holds
// up the connection's other streams until it returns.

// eventClocks are a server's clocks, by connection and interval.
type eventClocks struct {
	mu     sync.Mutex
	clocks map[clockKey]*eventClock
}

// clockKey names a clock: a connection (its client's address) and an
// interval.
type clockKey struct {
	conn     string
	interval time.Duration
}

// eventClock writes the events of one connection's streams.
type eventClock struct {
	owner *eventClocks
	key   clockKey
	mu    sync.Mutex // held while a tick writes; guards streams and buf
	live  []*eventStream
	buf   []byte // one event, reused: write copies it
}

// eventStream is one stream on a clock.
type eventStream struct {
	e     eventsQuery
	next  int // the next event's number, from 1
	rec   truthStream
	write func(event []byte) bool
	done  chan struct{} // closed when the stream has ended (its n events sent, or its client gone)
}

// newEventClocks returns a server's clocks, none running.
func newEventClocks() *eventClocks {
	return &eventClocks{clocks: make(map[clockKey]*eventClock)}
}

// add puts a stream on its connection's clock, started if there is none,
// and returns it; its done is closed once it has ended. write sends an
// event and says whether the client is still there; it is called on the
// clock's goroutine, never after remove returns or done is closed.
func (cs *eventClocks) add(conn string, e eventsQuery, rec truthStream, write func(event []byte) bool) (*eventClock, *eventStream) {
	s := &eventStream{e: e, next: 1, rec: rec, write: write, done: make(chan struct{})}
	key := clockKey{conn, e.interval}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.clocks[key]
	if c == nil {
		c = &eventClock{owner: cs, key: key}
		cs.clocks[key] = c
		go c.run()
	}
	c.mu.Lock()
	c.live = append(c.live, s)
	c.mu.Unlock()
	return c, s
}

// remove takes s off the clock, if it is still there: once it returns,
// the clock no longer writes to it.
func (c *eventClock) remove(s *eventStream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.live {
		if x == s {
			c.drop(i)
			return
		}
	}
}

// drop ends the stream at i; c.mu is held.
func (c *eventClock) drop(i int) {
	close(c.live[i].done)
	last := len(c.live) - 1
	c.live[i] = c.live[last]
	c.live[last] = nil
	c.live = c.live[:last]
}

// run ticks until the clock has no stream left. The next tick is an
// interval after the last one's writes, so that no stream's events are
// stamped less than an interval apart; a late tick is not made up.
func (c *eventClock) run() {
	var timer *time.Timer
	for c.tick() {
		if timer == nil {
			timer = time.NewTimer(c.key.interval)
			defer timer.Stop()
		} else {
			timer.Reset(c.key.interval)
		}
		<-timer.C
	}
}

// tick writes the next event of every stream on the clock, and ends the
// streams that are done or gone. It reports whether the clock goes on:
// with no stream left it is forgotten (under its owner's lock, so that a
// stream added meanwhile finds a new clock).
func (c *eventClock) tick() bool {
	c.mu.Lock()
	for i := 0; i < len(c.live); {
		s := c.live[i]
		var sent int64
		if s.e.stamp {
			now := time.Now()
			s.rec.sent(now)
			sent = now.UnixNano()
		}
		c.buf = sse.AppendTick(c.buf[:0], s.next, sent)
		s.next++
		if !s.write(c.buf) || (s.e.n != 0 && s.next > s.e.n) {
			c.drop(i) // the stream moved to the end is looked at next
			continue
		}
		i++
	}
	empty := len(c.live) == 0
	c.mu.Unlock()
	if !empty {
		return true
	}
	cs := c.owner
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.live) > 0 {
		return true // a stream came since
	}
	delete(cs.clocks, c.key)
	return false
}
