//go:build linux

package server

import (
	"testing"
	"time"
)

// h3WorkerStream is a stream of a connection on a loop without sockets,
// whose handler runs on a worker: enough for the hand-over of posts.
func h3WorkerStream() *h3stream {
	h := &h3loop{l: &loop{srv: &Server{cfg: Config{WriteTimeout: time.Second}}}}
	h.posts.Init(func() {})
	st := &h3stream{c: &h3conn{h: h}, worker: true, ack: make(chan struct{}, 1)}
	return st
}

func TestHTTP3StreamPosts(t *testing.T) {
	t.Run("a Flush whose post the loop has not taken is not woken by a stream's writable event", func(t *testing.T) {
		st := h3WorkerStream()
		// What post leaves for the loop before it waits on ack.
		st.mu.Lock()
		st.posted = append(st.posted, "frames"...)
		st.waiter = true
		st.mu.Unlock()
		st.writeOut() // EventStreamWritable, nothing pending on the loop's side
		if len(st.ack) != 0 {
			t.Fatal("the worker was told its frames are written before the loop took them")
		}
	})
	t.Run("a Flush that timed out leaves no wake-up for the next", func(t *testing.T) {
		st := h3WorkerStream()
		st.c.h.l.srv.cfg.WriteTimeout = time.Millisecond
		if err := st.post([]byte("first"), false, true); err == nil {
			t.Fatal("a post nobody took did not time out")
		}
		st.c.h.posts.Take()
		st.c.h.posts.Next()
		st.mu.Lock()
		st.pend = append(st.pend, st.posted...) // as takePosted, then the client takes it all
		st.posted, st.pend = st.posted[:0], st.pend[:0]
		st.inBox.Store(false)
		st.mu.Unlock()
		st.writeOut()
		if len(st.ack) != 0 {
			t.Fatal("a wake-up was left for a Flush that is no longer waiting")
		}
	})
}
