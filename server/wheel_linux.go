//go:build linux

package server

// timerWheel tracks connection deadlines for one loop: a ring of slots,
// each a doubly linked list of connections due in that tick. Adding,
// moving and removing a connection is O(1); each tick visits one slot.
// Deadlines live in the connections and may move later without the wheel
// knowing: a connection found in a slot before its deadline is moved on.
type timerWheel struct {
	slots []wheelEntry // list heads
	tick  int64        // ns per slot
	pos   int          // the next slot to visit
	next  int64        // when that slot is due (ns on the loop clock)
}

// wheelEntry is the intrusive list link embedded in each connection.
type wheelEntry struct {
	prev, next *wheelEntry // nil when not linked
	owner      wheelOwner
}

// wheelOwner is what the wheel calls back on a due entry.
type wheelOwner interface {
	// due is called for an entry whose slot came up; it returns the new
	// deadline to wait for, or 0 to drop the entry from the wheel.
	due(now int64) int64
}

const wheelSlots = 512

func newTimerWheel(tick, now int64) *timerWheel {
	w := &timerWheel{slots: make([]wheelEntry, wheelSlots), tick: tick, next: now + tick}
	for i := range w.slots {
		head := &w.slots[i]
		head.prev, head.next = head, head
	}
	return w
}

// schedule (re)links e to the slot due at deadline.
func (w *timerWheel) schedule(e *wheelEntry, deadline int64) {
	w.remove(e)
	ticks := (deadline - w.next + w.tick - 1) / w.tick
	if ticks < 0 {
		ticks = 0
	}
	if ticks >= wheelSlots {
		ticks = wheelSlots - 1 // revisited then, and moved on again
	}
	slot := (w.pos + int(ticks)) % wheelSlots
	head := &w.slots[slot]
	e.prev, e.next = head.prev, head
	head.prev.next = e
	head.prev = e
}

// remove unlinks e if it is linked.
func (w *timerWheel) remove(e *wheelEntry) {
	if e.next == nil {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

// advance visits every slot due by now.
func (w *timerWheel) advance(now int64) {
	for w.next <= now {
		head := &w.slots[w.pos]
		// Detach the slot's list first: due may reschedule into any slot,
		// including this one.
		first, last := head.next, head.prev
		head.prev, head.next = head, head
		w.pos = (w.pos + 1) % wheelSlots
		w.next += w.tick
		if first == head {
			continue
		}
		last.next = nil
		for e := first; e != nil; {
			next := e.next
			e.prev, e.next = nil, nil
			if deadline := e.owner.due(now); deadline > 0 {
				w.schedule(e, deadline)
			}
			e = next
		}
	}
}
