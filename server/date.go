package server

import (
	"net/http"
	"sync/atomic"
	"time"
)

// dateClock keeps the Date header value, refreshed once a second, so that
// responses copy 29 bytes instead of formatting a time.
type dateClock struct {
	value atomic.Pointer[[]byte]
	stop  chan struct{}
}

func newDateClock() *dateClock {
	d := &dateClock{stop: make(chan struct{})}
	d.refresh(time.Now())
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				d.refresh(now)
			case <-d.stop:
				return
			}
		}
	}()
	return d
}

func (d *dateClock) refresh(now time.Time) {
	b := now.UTC().AppendFormat(make([]byte, 0, 29), http.TimeFormat)
	d.value.Store(&b)
}

// get returns the current Date value; callers must not modify it.
func (d *dateClock) get() []byte { return *d.value.Load() }

func (d *dateClock) close() { close(d.stop) }

// dateString returns the Date value as a string, made once a second.
func (s *Server) dateString() string {
	b := s.date.get()
	if p := lastDate.Load(); p != nil && p.src == &b[0] {
		return p.s
	}
	v := &dateValue{src: &b[0], s: string(b)}
	lastDate.Store(v)
	return v.s
}

// lastDate caches the last Date string; keyed by the bytes it was made
// from, it serves every Server.
var lastDate atomic.Pointer[dateValue]

// dateValue is the Date string and the bytes it was made from.
type dateValue struct {
	src *byte
	s   string
}
