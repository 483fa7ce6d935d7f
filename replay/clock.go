package replay

import "time"

// clock turns the log's times into offsets from its first request.
type clock struct {
	started     bool  // a time has been seen
	first       int64 // the first time in the log, ns since the epoch
	offset      int64 // added to every offset: the passes before this one
	passEnd     int64 // end of this pass's times, from first
	last        int64 // the latest offset handed out
	open        bool  // a group of requests with one time is being staged
	groupT      int64
	groupCoarse bool
	prev        int64 // the time of the last request, for lines without one
	prevCoarse  bool
}

// nextPass starts the next pass over the log after the end of this one.
func (c *clock) nextPass() {
	c.offset += c.passEnd
	c.passEnd = 0
}

// timeRequest gives the request just staged, the last item, its place in
// a group of requests that share one logged time; the group before it is
// closed, its requests ready, when the time changes.
func (s *Source) timeRequest(e *entry) {
	st := &s.stage
	t, coarse, known := e.time, e.coarse, e.hasTime
	if !known {
		t, coarse = s.clock.prev, s.clock.prevCoarse
	}
	if known && !s.clock.started {
		s.clock.started, s.clock.first = true, t
	}
	if s.clock.open && (t != s.clock.groupT || coarse != s.clock.groupCoarse) {
		// The new request starts a new group: the ones before it are ready.
		last := st.items[len(st.items)-1]
		st.items = st.items[:len(st.items)-1]
		s.closeGroup()
		st.items = append(st.items, last)
	}
	s.clock.open, s.clock.groupT, s.clock.groupCoarse = true, t, coarse
	s.clock.prev, s.clock.prevCoarse = t, coarse
}

// closeGroup gives the requests of the open group their times, spread over
// a second when the group's time has whole-second resolution.
func (s *Source) closeGroup() {
	st := &s.stage
	if !s.opts.Timed {
		st.ready = len(st.items)
		return
	}
	c := &s.clock
	group := st.items[st.ready:]
	if len(group) == 0 {
		c.open = false
		return
	}
	var width int64
	if c.groupCoarse {
		width = 1e9
	}
	n := int64(len(group))
	for i := range group {
		at := c.groupT + width*int64(i)/n - c.first + c.offset
		if !c.started {
			at = c.offset
		}
		at = max(at, c.last)
		c.last = at
		group[i].at = time.Duration(at)
	}
	if c.started {
		c.passEnd = max(c.passEnd, c.groupT+width-c.first)
	}
	st.ready = len(st.items)
	c.open = false
}
