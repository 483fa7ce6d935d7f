//go:build linux

package server

// h3timers is a loop's QUIC connections ordered by their next deadline
// (a binary heap): QUIC's timers (acknowledgement delay, loss detection,
// pacing, idle) need millisecond precision, which the loop's wheel of
// 100 ms ticks does not give.
type h3timers struct {
	heap []*h3conn
}

// next returns the earliest deadline, 0 when none is set.
func (t *h3timers) next() int64 {
	if len(t.heap) == 0 {
		return 0
	}
	return t.heap[0].at
}

// due removes and returns a connection whose deadline is at or before
// now, nil when none is.
func (t *h3timers) due(now int64) *h3conn {
	if len(t.heap) == 0 || t.heap[0].at > now {
		return nil
	}
	c := t.heap[0]
	t.remove(c)
	return c
}

// set gives c the deadline at (0 removes it).
func (t *h3timers) set(c *h3conn, at int64) {
	if at == 0 {
		t.remove(c)
		return
	}
	if c.ti < 0 {
		c.at, c.ti = at, len(t.heap)
		t.heap = append(t.heap, c)
		t.up(c.ti)
		return
	}
	old := c.at
	c.at = at
	if at < old {
		t.up(c.ti)
	} else {
		t.down(c.ti)
	}
}

// remove takes c out of the heap, if it is in.
func (t *h3timers) remove(c *h3conn) {
	i := c.ti
	if i < 0 {
		return
	}
	last := len(t.heap) - 1
	t.swap(i, last)
	t.heap[last] = nil
	t.heap = t.heap[:last]
	c.ti = -1
	if i < last {
		t.down(i)
		t.up(i)
	}
}

func (t *h3timers) swap(i, j int) {
	t.heap[i], t.heap[j] = t.heap[j], t.heap[i]
	t.heap[i].ti, t.heap[j].ti = i, j
}

func (t *h3timers) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if t.heap[p].at <= t.heap[i].at {
			return
		}
		t.swap(i, p)
		i = p
	}
}

func (t *h3timers) down(i int) {
	n := len(t.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && t.heap[r].at < t.heap[l].at {
			m = r
		}
		if t.heap[i].at <= t.heap[m].at {
			return
		}
		t.swap(i, m)
		i = m
	}
}
