//go:build linux

package server

import (
	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// WebSocket over HTTP/2 (RFC 8441): an extended CONNECT stream (:protocol
// websocket) whose handler accepted the upgrade answers 200 without
// END_STREAM, and from then on its DATA both ways carries WebSocket
// frames. The stream's WSConn is the same as an HTTP/1.1 connection's
// (the engine, the callbacks, Send from any goroutine, WSGroup), but it
// is not its connection's protocol: the h2conn feeds it the stream's DATA
// (feedStream), its output waits in the stream's wsOut until the engine
// takes it as DATA under the windows (pumpWS), its pings and close wait
// are the h2conn's deadlines (wsDue), and its end is the stream's:
// END_STREAM after the close handshake, RST_STREAM(CANCEL) for a timeout
// (RFC 8441 section 4). Other streams of the connection go on alike.
// In Auto mode the DATA is fed at the end of the turn and OnMessage is
// watched, moved off the loop when it waits (h2wsauto_linux.go).

// openWS answers st's extended CONNECT with p (200 and the handshake's
// fields) and switches the stream to WebSocket: OnOpen, then the DATA
// that arrived while the handler ran.
func (hc *h2conn) openWS(st *h2stream, p h2part, now int64) {
	c := hc.c
	var err error
	c.out, err = hc.sc.WriteHeaders(c.out, st.id, p.status, p.fields, false)
	u := p.ws
	p.free()
	if err != nil {
		hc.endStream(st, errStreamGone)
		return
	}
	ws := &WSConn{c: c, st: st, cfg: u.cfg, subproto: u.subprotoIndex(), lastRead: now}
	ws.eng.Init(websocket.Config{MaxMessage: u.cfg.maxMessage(), Deflate: u.deflate})
	ws.deflate, ws.sharedDeflate = u.deflate != nil, ws.eng.SharedCompression()
	ws.engLocked = ws.deflate && !ws.sharedDeflate
	st.ws = ws
	c.l.srv.counters.wsOpen.Add(1)
	ws.open()
	if early := st.early; early != nil || st.earlyEnd {
		st.early = nil
		if c.l.dispatcher().watched() {
			hc.holdWS(st, early, st.earlyEnd, false, now) // credited below
		} else {
			hc.feedWS(st, early, st.earlyEnd, now)
		}
		if early != nil {
			putBuf(early)
		}
	}
	st.mu.Lock()
	held := st.uncredited // the window of the DATA held: given back now
	st.uncredited = 0
	st.mu.Unlock()
	c.out = hc.sc.Consume(c.out, st.id, held)
	hc.kickWS(st)
}

// tunnelData takes DATA of an extended CONNECT stream: WebSocket frames
// once it is open, held until then (its window with it, which bounds
// what is held) while the handler has not answered; a stream answered
// otherwise drops what was held when it ends. While the WebSocket's
// output backs up past MaxBuffered (a client that sends and does not
// read: pongs pile up), the window is not given back until it drains
// (pumpWS), so the client's stream window bounds what it can make the
// server queue.
func (hc *h2conn) tunnelData(st *h2stream, data []byte, end bool) {
	switch {
	case st.ws != nil && hc.c.l.dispatcher().watched():
		hc.holdWS(st, data, end, true, hc.c.l.e.now()) // fed, and credited, at the end of the turn
	case st.ws != nil:
		hc.feedWS(st, data, end, hc.c.l.e.now())
		if len(st.wsOut)+hc.sc.Pending(st.id) > st.ws.cfg.maxBuffered() {
			st.mu.Lock()
			st.uncredited += len(data)
			st.mu.Unlock()
			return
		}
		hc.c.out = hc.sc.Consume(hc.c.out, st.id, len(data))
	default:
		if st.early == nil && len(data) > 0 {
			st.early = getBuf()
		}
		st.early = append(st.early, data...)
		st.earlyEnd = st.earlyEnd || end
		st.mu.Lock()
		st.uncredited += len(data) // given back by openWS or forgetStream
		st.mu.Unlock()
	}
}

// feedWS gives the engine a stream's DATA (after what a partial frame
// left in wsIn); the engine's answers (pongs, the close reply) go to
// wsOut. END_STREAM before a close handshake is the client going away.
func (hc *h2conn) feedWS(st *h2stream, data []byte, end bool, now int64) {
	ws := st.ws
	ws.lastRead, ws.pingSent = now, false
	in := data
	if len(st.wsIn) > 0 {
		st.wsIn = append(st.wsIn, data...)
		in = st.wsIn
	}
	if st.wsOut == nil {
		st.wsOut = getBuf()
	}
	if !ws.closing {
		ws.lockEng()
		ws.eng.Lend(&ws.c.l.seat.wsEvents)
		out, n, err := ws.eng.Feed(st.wsOut, in)
		ws.unlockEng()
		st.wsOut = out
		events := ws.eng.Events()
		for i := range events {
			ws.event(&events[i])
		}
		if err != nil {
			if ce, _ := err.(*websocket.CloseError); ce != nil {
				ws.end(ce.Code, ce.Reason)
			}
			ws.closing = true // our close frame is in wsOut: END_STREAM after it
			n = len(in)
		}
		switch rest := in[n:]; {
		case len(rest) == 0 && st.wsIn != nil:
			putBuf(st.wsIn)
			st.wsIn = nil
		case len(rest) > 0 && st.wsIn != nil:
			st.wsIn = st.wsIn[:copy(st.wsIn, rest)]
		case len(rest) > 0:
			st.wsIn = append(getBuf(), rest...)
		}
		ws.lockEng()
		ws.eng.Recycle()
		ws.unlockEng()
	}
	if end && !ws.closing {
		ws.end(websocket.CloseAbnormal, "") // END_STREAM without a close frame: as TCP's FIN without one
		ws.closing = true
	}
	hc.kickWS(st)
}

// kickWS puts a WebSocket stream on the list pump goes through.
func (hc *h2conn) kickWS(st *h2stream) {
	if !st.inSending {
		st.inSending = true
		hc.sending = append(hc.sending, st)
	}
}

// pumpWS gives a WebSocket stream's output to the engine as DATA: the
// buffer handed over is held until the windows have taken all of it, the
// next one meanwhile fills. Once the close handshake is over and all is
// out, END_STREAM ends the stream. True when nothing is left to do.
func (hc *h2conn) pumpWS(st *h2stream, now int64) bool {
	c, sc, ws := hc.c, hc.sc, st.ws
	pend := sc.Pending(st.id)
	if pend != st.pend {
		st.pend, st.since = pend, now // the client's window moved: progress
	}
	ws.unwritten.Store(int32(min(pend+len(st.wsOut), 1<<30)))
	if pend > 0 || len(c.out) >= outHigh {
		return false
	}
	if st.send.own != nil { // all framed: the buffer goes back
		putBuf(st.send.own)
		st.send.own = nil
	}
	ws.takeBox(&st.wsOut)
	if len(st.wsOut) > 0 {
		buf := st.wsOut
		st.wsOut = nil
		var err error
		c.out, err = sc.WriteData(c.out, st.id, buf, false)
		if err != nil {
			putBuf(buf)
			hc.endStream(st, errStreamGone)
			return true
		}
		st.since = now
		if st.pend = sc.Pending(st.id); st.pend > 0 {
			st.send.own = buf
			ws.unwritten.Store(int32(min(st.pend, 1<<30)))
			return false
		}
		putBuf(buf)
	}
	ws.unwritten.Store(0)
	st.mu.Lock()
	held := st.uncredited // the window held while the output backed up
	st.uncredited = 0
	st.mu.Unlock()
	if held > 0 {
		c.out = sc.Consume(c.out, st.id, held)
	}
	if ws.closing {
		c.out, _ = sc.WriteData(c.out, st.id, nil, true)
		hc.finishStream(st)
	}
	return true
}

// wsDue is the deadline's work for a WebSocket stream: its ping after
// PingInterval of silence, a reset (CANCEL) when the pong or the close
// reply does not come.
func (hc *h2conn) wsDue(st *h2stream, now int64) {
	ws := st.ws
	if st.wsOff {
		return // a callback off the loop has it: no ping until it is back
	}
	p := int64(ws.cfg.pingInterval())
	switch {
	case ws.closeBy > 0 && now >= ws.closeBy, p > 0 && ws.pingSent && now-ws.lastRead >= 2*p:
		hc.c.out = hc.sc.Reset(hc.c.out, st.id, http2.ErrCodeCancel)
		hc.endStream(st, errStreamGone) // OnClose sees 1006
	case p > 0 && !ws.pingSent && now-ws.lastRead >= p:
		ws.pingSent = true
		if st.wsOut == nil {
			st.wsOut = getBuf()
		}
		st.wsOut = websocket.AppendFrame(st.wsOut, websocket.OpPing, true, false, nil, nil)
		hc.kickWS(st)
	}
}

// streamDeadline is the first of next, a WebSocket stream's ping (or its
// reset for want of a pong) and the close reply's wait; none while a
// callback is off the loop (wsDue waits for it).
func (ws *WSConn) streamDeadline(next int64) int64 {
	if ws.st.wsOff {
		return next
	}
	if p := int64(ws.cfg.pingInterval()); p > 0 {
		if ws.pingSent {
			p *= 2
		}
		next = min(next, ws.lastRead+p)
	}
	if ws.closeBy > 0 {
		next = min(next, ws.closeBy)
	}
	return next
}

// shutdownWS is Shutdown's step for a WebSocket stream: a close frame
// with 1001 (going away), then the client's reply or wsCloseWait.
func (hc *h2conn) shutdownWS(st *h2stream) {
	ws := st.ws
	ws.mu.Lock()
	// The engine is a moved callback's goroutine's while it is off the
	// loop; takeBox asks it again anyway.
	if !ws.closeQ && (st.wsOff || !ws.eng.CloseSent()) {
		ws.closeQ, ws.closeCode, ws.closeReason = true, int32(websocket.CloseGoingAway), &shuttingDown
	}
	ws.gone = true
	ws.mu.Unlock()
	hc.kickWS(st)
}

// releaseWS ends a WebSocket stream: OnClose (1006 unless a close
// handshake reported another code), and its buffers go back.
func (st *h2stream) releaseWS() {
	ws := st.ws
	if !st.awayWS() { // else the callback's goroutine releases it (handBack)
		ws.release(ws.c)
		if st.wsIn != nil {
			putBuf(st.wsIn)
			st.wsIn = nil
		}
	}
	for _, b := range []*[]byte{&st.wsOut, &st.wsHold, &st.early} {
		if *b != nil {
			putBuf(*b)
			*b = nil
		}
	}
}

// wsUpgradePart is the response of an extended CONNECT whose handler
// accepted the upgrade: 200 with the handler's fields, the subprotocol
// and the extension answer; no content-length (RFC 9110 section 9.3.6).
// The part keeps a copy of u, which lives in the Ctx (Ctx.upgraded) and
// goes with it.
func wsUpgradePart(u *wsUpgrade, fields []http2.Field) h2part {
	own := new(wsUpgrade)
	*own = *u
	u = own
	if u.subprotocol != "" {
		fields = append(fields, http2.Field{Name: "sec-websocket-protocol", Value: u.subprotocol})
	}
	if u.extension != nil {
		fields = append(fields, http2.Field{Name: "sec-websocket-extensions", Value: string(u.extension)})
	}
	return h2part{status: 200, fields: fields, ws: u}
}
