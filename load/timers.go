package load

// timerHeap is a binary min-heap of connections keyed by conn.at, the time
// each is waiting for (its next scheduled send, or a reconnect after a
// back-off). It stores its position in conn.heapIdx so a connection can be
// removed in O(log n), and never allocates once its slice has grown.
type timerHeap []*conn

func (h *timerHeap) push(c *conn) {
	if c.heapIdx >= 0 {
		h.fix(c)
		return
	}
	c.heapIdx = len(*h)
	*h = append(*h, c)
	h.up(c.heapIdx)
}

func (h timerHeap) peek() *conn {
	if len(h) == 0 {
		return nil
	}
	return h[0]
}

func (h *timerHeap) pop() *conn {
	old := *h
	c := old[0]
	h.remove(c)
	return c
}

func (h *timerHeap) remove(c *conn) {
	i := c.heapIdx
	if i < 0 {
		return
	}
	old := *h
	last := len(old) - 1
	if i != last {
		old[i] = old[last]
		old[i].heapIdx = i
	}
	old[last] = nil
	*h = old[:last]
	c.heapIdx = -1
	if i != last {
		h.down(i)
		h.up(i)
	}
}

func (h timerHeap) fix(c *conn) {
	h.down(c.heapIdx)
	h.up(c.heapIdx)
}

func (h timerHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].at <= h[i].at {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h timerHeap) down(i int) {
	n := len(h)
	for {
		smallest := i
		l, r := 2*i+1, 2*i+2
		if l < n && h[l].at < h[smallest].at {
			smallest = l
		}
		if r < n && h[r].at < h[smallest].at {
			smallest = r
		}
		if smallest == i {
			return
		}
		h.swap(i, smallest)
		i = smallest
	}
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = i
	h[j].heapIdx = j
}
