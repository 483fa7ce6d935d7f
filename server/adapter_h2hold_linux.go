//go:build linux

package server

// Flushes of a net/http handler running on its loop (Auto mode), over
// HTTP/2: the handler stays on the loop, and what it flushes waits with
// its stream until the handler returns, then goes out with the
// response's last part in the loop's write for the turn. A gRPC answer
// (grpc-go's ServeHTTP flushes its headers and message, then its status)
// thus costs no move off the loop, no worker, no wake-up of the loop and
// one write, shared with the other frames of the turn (the PING
// acknowledgements a gRPC client asks for). A handler that outlives its
// budget is moved off as any other, and what it flushed goes to the loop
// then (movedOff): a flush waits at most the handler budget.

// holdOnLoop is Flush for a handler on its loop: the part is left in the
// stream's posted part without waking the loop, which is running this
// handler. held is false when the handler is no longer on its loop (the
// watchdog moved it) or would hold more than asyncFlushLimit bytes: then
// Flush moves it off and posts as a worker's does.
func (w *h2Writer) holdOnLoop() (held bool, err error) {
	st := w.st
	if st.asyncBytes.Load()+int64(len(w.c.out)) > asyncFlushLimit {
		return false, nil
	}
	hc := st.hc
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if st.ack != nil {
		return false, nil // moved off: it posts from now on
	}
	if hc.dead || st.gone.Load() {
		return true, errStreamGone
	}
	p := h2part{body: w.c.out}
	if !st.headersPosted {
		st.headersPosted = true
		p.status, p.fields = w.fields(-1)
	}
	if p.status == 0 && len(p.body) == 0 {
		return true, nil
	}
	w.asyncPart(&p)
	if st.hasPost {
		mergePart(&st.posted, &p)
	} else {
		st.posted, st.hasPost = p, true
	}
	return true, nil
}

// withHeld puts what the handler's flushes held on the loop before p,
// the response's last part, if the handler returned on its loop; moved
// off, p is posted after them (h2stream.post joins it to them).
func (w *h2Writer) withHeld(p h2part) h2part {
	st := w.st
	if w.c.mover == nil {
		return p // not started on a loop (Pooled), or moved off
	}
	hc := st.hc
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if st.ack != nil || !st.hasPost {
		return p
	}
	held := st.posted
	st.posted, st.hasPost = h2part{}, false
	mergePart(&held, &p)
	return held
}

// movedOff is called by whoever moves a stream's handler off its loop:
// the stream gets the channel its flushes wait on from now on, and what
// the handler's flushes held (holdOnLoop) and the window its body gave
// back (giveBack) go to the loop.
func (st *h2stream) movedOff() {
	hc := st.hc
	hc.mu.Lock()
	st.ack = make(chan error, 1)
	wake := (st.hasPost || st.credit > 0) && !hc.dead && !st.gone.Load() && st.readyLocked()
	hc.mu.Unlock()
	if wake {
		hc.queue()
	}
}

// giveBack hands n bytes the handler read (or dropped) back to the loop
// as window. While the handler runs on its loop the credit waits in the
// stream without waking the loop: the stream ends there, and its end
// gives back all its window (forgetStream), or the handler is moved off,
// and the move hands the credit over (movedOff).
func (b *h2Body) giveBack(n int) {
	st := b.st
	if b.onLoop {
		hc := st.hc
		hc.mu.Lock()
		if st.ack == nil {
			if !hc.dead && !st.gone.Load() {
				st.credit += n
			}
			hc.mu.Unlock()
			return
		}
		hc.mu.Unlock()
	}
	st.post(nil, n)
}
