package server

import "unsafe"

// Auto mode's memory: which routes wait. A route is a hash of the path;
// each loop has a table of its own, touched only by the goroutine running
// the loop, so it needs no lock and no atomics.

// routeSlots is the size of a loop's route table. Two paths sharing a
// slot share its verdict: a fast route that collides with a waiting one
// goes to workers too, which costs it speed, not correctness.
const routeSlots = 1024

// Probe intervals: a route whose handlers outlived their budget twice in
// a row (once may be the system or the collector holding up a fast one)
// sends its next firstProbe requests to workers, then lets one run on the
// loop (a probe). A probe that waits again doubles the interval, up to maxProbe;
// one that returns in time halves it, so a route that became fast is
// back on the loop after about twice its interval.
const (
	firstProbe = 16
	maxProbe   = 1024
)

type routeSlot struct {
	every uint16 // requests between probes; 0: the route runs on the loop
	left  uint16 // requests still to send to workers before the next probe
	// strikes counts the route's handlers moved off in a row while it
	// runs on the loop.
	strikes uint8
}

// strikesToLearn is how many handlers of a route must outlive their
// budget in a row before the route goes to workers.
const strikesToLearn = 2

type routeTable struct {
	// slot[wsRoute] is WebSocket callbacks': they always start on the
	// loop, so what it learns is never asked.
	slot [routeSlots + 1]routeSlot
}

// wsRoute is the route of WebSocket callbacks (wsauto_linux.go).
const wsRoute = routeSlots

// routeOf hashes a path (FNV-1a) to its slot.
func routeOf(path []byte) uint32 {
	h := uint32(2166136261)
	for _, b := range path {
		h ^= uint32(b)
		h *= 16777619
	}
	return h % routeSlots
}

// waits reports whether the next request for route r goes to a worker.
func (t *routeTable) waits(r uint32) bool {
	s := &t.slot[r]
	if s.left > 0 {
		s.left--
		return true
	}
	return false
}

// moved records that a handler for route r outlived its budget.
func (t *routeTable) moved(r uint32) {
	s := &t.slot[r]
	if s.every == 0 {
		if s.strikes++; s.strikes < strikesToLearn {
			return
		}
		s.strikes = 0
	}
	s.every = min(max(2*s.every, firstProbe), maxProbe)
	s.left = s.every
}

// blip undoes moved for route r, whose handler returned as soon as it was
// moved: it had been held up, not waiting.
func (t *routeTable) blip(r uint32) {
	if s := &t.slot[r]; s.every <= firstProbe {
		*s = routeSlot{}
	} else {
		s.every /= 2
		s.left = min(s.left, s.every)
	}
}

// quick records that a handler for route r returned within its budget.
func (t *routeTable) quick(r uint32) {
	s := &t.slot[r]
	if s.every > 0 {
		s.every /= 2
		s.left = s.every
	} else if s.strikes != 0 {
		s.strikes = 0
	}
}

// moveViews points ctx's views of from (the request's head and body) at
// the same bytes in to, a copy of from: a request parsed on a loop moves
// to a worker with its connection's input, and is not parsed again.
func (c *Ctx) moveViews(from, to []byte) {
	r := &c.req
	r.Method = moved(r.Method, from, to)
	r.Target = moved(r.Target, from, to)
	r.Path = moved(r.Path, from, to)
	r.Query = moved(r.Query, from, to)
	r.Host = moved(r.Host, from, to)
	for i := range r.Headers {
		h := &r.Headers[i]
		h.Name = moved(h.Name, from, to)
		h.Value = moved(h.Value, from, to)
	}
	c.rawHead = moved(c.rawHead, from, to)
	c.body = moved(c.body, from, to)
	c.rest = moved(c.rest, from, to)
}

// moved returns b's place in to if b is a view of from, else b.
func moved(b, from, to []byte) []byte {
	if b == nil || len(from) == 0 {
		return b
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(from)))
	end := off + uintptr(len(b))
	if off > uintptr(len(from)) || end > uintptr(len(from)) || end > uintptr(len(to)) {
		return b // not a view of from (or a constant)
	}
	return to[off:end:end]
}
