//go:build linux

package server

import "sync"

// Buffers for connections in progress, shared by all loops and workers.
// The pool holds *buffer so that putting one back allocates nothing.
type buffer struct{ b []byte }

var bufPool = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 4096)} }}

// spareBuffers recycles the *buffer holders whose slices are out on loan.
var spareBuffers = sync.Pool{New: func() any { return new(buffer) }}

func getBuf() []byte {
	h := bufPool.Get().(*buffer)
	b := h.b[:0]
	h.b = nil
	spareBuffers.Put(h)
	return b
}

// getBuffer lends a whole holder, for a struct that keeps one in a
// pointer (8 bytes) rather than a slice (24); putBuffer gives it back.
func getBuffer() *buffer {
	h := bufPool.Get().(*buffer)
	h.b = h.b[:0]
	return h
}

func putBuffer(h *buffer) {
	if cap(h.b) == 0 || cap(h.b) > 1<<20 {
		return // keep the pool to ordinary sizes
	}
	h.b = h.b[:0]
	bufPool.Put(h)
}

func putBuf(b []byte) {
	if cap(b) == 0 || cap(b) > 1<<20 {
		return // keep the pool to ordinary sizes
	}
	h := spareBuffers.Get().(*buffer)
	h.b = b[:0]
	bufPool.Put(h)
}

// Ctx values for workers, reused across requests.
var ctxPool sync.Pool

func getCtx(s *Server) *Ctx {
	if v := ctxPool.Get(); v != nil {
		c := v.(*Ctx)
		c.srv = s
		return c
	}
	return &Ctx{srv: s}
}

func putCtx(c *Ctx) {
	c.reset()
	c.peer = nil
	if cap(c.out) > 1<<20 || cap(c.resp) > 1<<20 || cap(c.bodyBuf) > 1<<20 {
		return
	}
	ctxPool.Put(c)
}
