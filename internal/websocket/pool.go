package websocket

import "sync"

// maxPooledBuf is the largest buffer a pool keeps; bigger ones were for
// rare big messages and go to the garbage collector.
const maxPooledBuf = 1 << 20

var bufPool sync.Pool // *[]byte, empty

func getBuf() *[]byte {
	if v := bufPool.Get(); v != nil {
		return v.(*[]byte)
	}
	b := make([]byte, 0, 4096)
	return &b
}

func putBuf(b *[]byte) {
	if cap(*b) > maxPooledBuf {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

var eventsPool sync.Pool // *[]Event, empty

func getEvents() *[]Event {
	if v := eventsPool.Get(); v != nil {
		return v.(*[]Event)
	}
	e := make([]Event, 0, 16)
	return &e
}

func putEvents(e *[]Event) {
	clear(*e)
	*e = (*e)[:0]
	eventsPool.Put(e)
}
