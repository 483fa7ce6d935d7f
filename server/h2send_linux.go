//go:build linux

package server

import (
	"github.com/gust-http/gust/internal/http2"
)

// The sending side of an HTTP/2 connection's streams, on its loop: what
// handlers post applied, response parts given to the engine as the
// windows allow, and streams forgotten once done or reset.

// endStream forgets a stream that was reset or failed: its handler sees
// err, and the body bytes it did not take are given back to the
// connection's window.
func (hc *h2conn) endStream(st *h2stream, err error) {
	if hc.streams[st.id] != st {
		return
	}
	st.fail(err)
	hc.forgetStream(st)
}

// finishStream forgets a stream whose response is complete.
func (hc *h2conn) finishStream(st *h2stream) {
	if hc.streams[st.id] != st {
		return
	}
	st.gone.Store(true)
	st.mu.Lock()
	if st.inErr == nil && !st.eof {
		st.inErr = errStreamGone
	}
	st.mu.Unlock()
	st.signal()
	hc.forgetStream(st)
}

func (hc *h2conn) forgetStream(st *h2stream) {
	l := hc.c.l
	c := hc.c
	st.mu.Lock()
	left := st.uncredited + st.wsUnfed
	st.uncredited, st.wsUnfed = 0, 0
	st.mu.Unlock()
	if left > 0 {
		c.out = hc.sc.Consume(c.out, st.id, left)
	}
	st.releaseSend()
	delete(hc.streams, st.id)
	hc.lastActive = l.e.now()
}

// apply applies what a worker posted for st.
func (hc *h2conn) apply(st *h2stream, now int64) {
	c := hc.c
	if n := st.nextCredit; n > 0 {
		st.nextCredit = 0
		st.mu.Lock()
		n = min(n, st.uncredited)
		st.uncredited -= n
		st.mu.Unlock()
		c.out = hc.sc.Consume(c.out, st.id, n)
	}
	if st.ws != nil {
		st.ws.mu.Lock()
		st.ws.queued = false // what it queued is taken at the pump
		st.ws.mu.Unlock()
		if st.wsOff && !hc.takeBack(st) {
			return // its callback is off the loop: written once it is back
		}
		hc.kickWS(st)
		return
	}
	if !st.hasNext {
		return
	}
	p := st.next
	st.next, st.hasNext = h2part{}, false
	if st.gone.Load() || hc.streams[st.id] != st {
		if p.wait {
			select {
			case st.ack <- errStreamGone:
			default:
			}
		}
		p.free()
		return
	}
	if st.inSending && !p.reset && hc.streams[st.id] == st {
		// The part before it is still being framed (a flush not waited
		// for): this one follows it.
		mergePart(&st.send, &p)
		return
	}
	hc.startPart(st, p, now)
}

// startPart begins giving a response part to the engine: headers now, the
// body as pump finds room.
func (hc *h2conn) startPart(st *h2stream, p h2part, now int64) {
	c := hc.c
	if p.reset {
		c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeInternal)
		p.free()
		hc.endStream(st, errStreamGone)
		return
	}
	if p.ws != nil {
		hc.openWS(st, p, now)
		return
	}
	if p.status > 0 {
		endNow := p.end && len(p.body) == 0 && p.fileDone() && p.trailers == nil
		var err error
		c.out, err = hc.sc.WriteHeaders(c.out, st.id, p.status, p.fields, endNow)
		if err != nil {
			p.free()
			hc.endStream(st, errStreamGone)
			return
		}
		if endNow {
			p.free()
			hc.finishStream(st)
			return
		}
		p.status, p.fields = 0, nil // written: the fields may be the loop's scratch
	}
	st.send = p
	st.since = now
	if !st.inSending {
		st.inSending = true
		hc.sending = append(hc.sending, st)
	}
}

// pump gives response bodies to the engine while the windows admit them
// and the socket keeps up.
func (hc *h2conn) pump(now int64) {
	c := hc.c
	if c.keepOut && len(hc.sending) > 0 {
		hc.reserveOut()
	}
	defer func() { c.keepOut = len(c.out) >= outHigh }()
	j := 0
	for _, st := range hc.sending {
		if hc.streams[st.id] == st && !hc.pumpStream(st, now) {
			hc.sending[j] = st
			j++
			continue
		}
		st.inSending = false
	}
	clear(hc.sending[j:])
	hc.sending = hc.sending[:j]
}

// outRoom is what c.out holds at most while pump fills it: outHigh, and
// the last piece given to the engine with its frame headers.
const outRoom = outHigh + 80<<10

// reserveOut gives c.out room for a pump's worth of DATA at once, so that
// a large body does not grow a small pooled buffer by doubling every turn
// (a megabyte of garbage per 256 KiB sent). The connection keeps it
// (c.keepOut) while its pumps fill it, the socket and not the clients'
// windows being what holds the bodies back; one whose streams wait for
// window gives it back.
func (hc *h2conn) reserveOut() {
	c := hc.c
	if cap(c.out) >= outRoom {
		return
	}
	out := make([]byte, len(c.out), outRoom)
	copy(out, c.out)
	if c.out != nil {
		putBuf(c.out)
	}
	c.out = out
}

// pumpStream gives st's part to the engine; true once the part is done.
func (hc *h2conn) pumpStream(st *h2stream, now int64) bool {
	if st.ws != nil {
		// A callback off the loop has the stream: its output waits (and
		// is no WriteTimeout's) until it is back (takeBack kicks it).
		return st.wsOff || hc.pumpWS(st, now)
	}
	c, sc, p := hc.c, hc.sc, &st.send
	for {
		pend := sc.Pending(st.id)
		if pend != st.pend {
			st.pend, st.since = pend, now // the client's window moved: progress
		}
		if pend > 0 || len(c.out) >= outHigh {
			return false
		}
		if len(p.body) == 0 && !p.fileDone() && !hc.filePiece(st, p) {
			return true // the file fell short: the stream is reset
		}
		if len(p.body) > 0 {
			piece := p.body[:min(len(p.body), 64<<10)]
			p.body = p.body[len(piece):]
			endNow := len(p.body) == 0 && p.fileDone() && p.end && p.trailers == nil
			var err error
			c.out, err = sc.WriteData(c.out, st.id, piece, endNow)
			if err != nil {
				hc.endStream(st, errStreamGone)
				return true
			}
			p.endSent = endNow
			st.since = now
			continue
		}
		if p.end {
			if !p.endSent {
				if p.trailers != nil {
					c.out, _ = sc.WriteTrailers(c.out, st.id, p.trailers)
				} else {
					c.out, _ = sc.WriteData(c.out, st.id, nil, true)
				}
				p.endSent = true
			}
			hc.finishStream(st)
			return true
		}
		// A flushed part, all framed: its worker may go on.
		wait, async := p.wait, p.async
		p.free()
		if async > 0 {
			st.asyncBytes.Add(-int64(async))
		}
		if wait {
			select {
			case st.ack <- nil:
			default:
			}
		}
		return true
	}
}
