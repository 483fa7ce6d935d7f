//go:build linux

package server

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/gust-http/gust/internal/websocket"
)

// WebSocket on the loop: after the upgrade's 101 a connection's protocol
// is a WSConn. Frames are read in place in the loop's buffer and fed to
// the sans-I/O engine (internal/websocket), which unmasks them there,
// answers pings and closes, and reports whole messages; the callbacks run
// on the loop; what they and other goroutines send waits in the
// connection's outbox until the loop writes it, at the end of the turn.

// WSConn is one WebSocket connection. Its methods are safe from any
// goroutine; the callbacks of its WebSocket run on its loop.
type WSConn struct {
	// Set once.
	c   *conn
	st  *h2stream // the HTTP/2 stream it is (RFC 8441), nil on HTTP/1.1
	cfg *WebSocket
	// subproto is the chosen subprotocol's index in cfg.Subprotocols, or
	// -1: a byte among the flags rather than a string's 16 (an idle
	// connection's WSConn fits the allocator's 176-byte class, the
	// engine's events being lent by the seat).
	subproto int8
	// deflate: permessage-deflate was negotiated; sharedDeflate: without
	// context takeover on the server's side, so a broadcast's frame
	// compressed once fits; engLocked: the engine is shared with senders
	// (its compressor keeps context), so the loop uses it under mu too.
	deflate, sharedDeflate, engLocked bool

	// The loop's. (Fields are ordered so that the flags pack: an idle
	// connection is this struct and its conn, nothing else.)
	pingSent bool // a ping went out after PingInterval of silence
	closing  bool // the close handshake is done or failed: close once the output is written
	opened   bool // OnOpen was called
	ended    bool // OnClose was called
	released bool // release ran (it may run twice: a lingering close, then the close)
	// idleTurn: the turn only exchanged pings and pongs (one of ours,
	// or the client's): once it is written, a TLS connection's record
	// keys rest at once rather than after the loop's quiet period.
	idleTurn bool

	// Guarded by mu: flags of what other goroutines (and callbacks) queue.
	queued bool // on the loop's post list
	back   bool // a callback moved off the loop gave the connection back
	gone   bool // closed or closing: sends fail
	closeQ bool // Close was called: send a close frame with closeCode

	// unwritten is what the loop holds that the client has not read
	// (c.out), stored by the loop at the end of each turn for senders
	// checking MaxBuffered (which is below 2 GiB).
	unwritten atomic.Int32
	closeCode int32 // guarded by mu

	// The loop's.
	eng          websocket.Conn
	lastRead     int64 // loop clock: when input last arrived
	blockedSince int64 // when the socket stopped taking output
	closeBy      int64 // when to close without the client's close reply (after ours)

	// Guarded by mu: what other goroutines (and callbacks) queue.
	mu          sync.Mutex
	box         *buffer     // frames to write, in order; nil when none (a pooled holder: 8 bytes, not a slice's 24)
	closeReason *string     // Close's reason, nil for none (a pointer, as box is: the struct fits the 176-byte class)
	groups      *[]*WSGroup // the groups it is in, to leave when it ends; nil for none

	value any // the application's, for Value and SetValue
}

// shuttingDown is the close reason of connections a Shutdown ends.
var shuttingDown = "server shutting down"

// wsCloseWait bounds how long a connection waits for the client's close
// reply after the server's close frame.
const wsCloseWait = int64(2e9)

// newWSConn switches c, whose owner has just answered the upgrade u, to
// WebSocket.
func newWSConn(c *conn, u *wsUpgrade, now int64) *WSConn {
	ws := &WSConn{c: c, cfg: u.cfg, subproto: u.subprotoIndex(), lastRead: now}
	ws.eng.Init(websocket.Config{MaxMessage: u.cfg.maxMessage(), Deflate: u.deflate})
	ws.deflate, ws.sharedDeflate = u.deflate != nil, ws.eng.SharedCompression()
	ws.engLocked = ws.deflate && !ws.sharedDeflate
	c.proto = ws
	if c.tls != nil {
		c.tls.DropConnectionState() // no Request will ask for it now
	}
	c.rd.done()
	c.headScan, c.reqStart = 0, 0
	c.deadline.Store(ws.nextDeadline(now))
	c.l.srv.counters.wsOpen.Add(1)
	return ws
}

// upgradeOnLoop switches c to WebSocket on its loop, once the 101 (in
// out) is written; rest is what followed the request, its first frames.
func (c *conn) upgradeOnLoop(st *seat, u *wsUpgrade, rest, out []byte, now int64) bool {
	ws := newWSConn(c, u, now)
	c.keep(rest)
	if !c.l.writeOut(c, st, out) {
		return false
	}
	return ws.serveIn(c, now)
}

// upgradeOffLoop switches c to WebSocket on the worker that served the
// upgrade, once the 101 is written, and gives c back to its loop, which
// opens it (posted): a WebSocket's callbacks run on the loop.
func (c *conn) upgradeOffLoop(u *wsUpgrade, rest []byte) {
	l := c.l
	ws := newWSConn(c, u, l.e.now())
	c.keep(rest)
	ws.mu.Lock()
	ws.queued = true
	ws.mu.Unlock()
	c.state.Store(stIdle)
	if l.e.stopping.Load() {
		l.closeIfStopped(c)
		return
	}
	l.post(c)
}

// open calls OnOpen, once, before anything the connection received is
// served.
func (ws *WSConn) open() {
	if ws.opened {
		return
	}
	ws.opened = true
	if f := ws.cfg.OnOpen; f != nil {
		f(ws)
	}
}

// serveIn opens the connection and serves what arrived with the upgrade
// (c.in). False if c was closed.
func (ws *WSConn) serveIn(c *conn, now int64) bool {
	ws.open()
	if len(c.in) > 0 {
		return ws.serve(c, c.in, false, now)
	}
	return c.state.Load() != stClosed
}

func (ws *WSConn) serve(c *conn, data []byte, drained bool, now int64) bool {
	// The turn ends in endTurn, which takes the outbox: what the callbacks
	// (or other goroutines) send meanwhile needs no post, and no wake-up
	// of the loop (a system call per message).
	ws.mu.Lock()
	ws.queued = true
	ws.mu.Unlock()
	ws.open() // a worker's upgrade may be read before its post is taken
	ws.lastRead, ws.pingSent = now, false
	if c.out == nil {
		c.out = getBuf()
	}
	st := c.l.seat // this goroutine's, even if the loop goes on without it
	ws.lockEng()
	ws.eng.Lend(&st.wsEvents)
	out, n, err := ws.eng.Feed(c.out, data)
	ws.unlockEng()
	c.out = out
	events := ws.eng.Events()
	ws.idleTurn = len(events) > 0 && n == len(data) && err == nil && !ws.eng.InMessage()
	for i := range events {
		if k := events[i].Kind; k != websocket.EventPing && k != websocket.EventPong {
			ws.idleTurn = false
		}
		if events[i].Kind == websocket.EventMessage && st.site.dispatcher().watched() {
			if !ws.messageWatched(st, &events[i]) {
				ws.finishMoved(c, st, events[i+1:], data[n:], err) // never returns
			}
			continue
		}
		ws.event(&events[i])
	}
	ws.afterEvents(c, data[n:], err)
	return true
}

// afterEvents ends a turn's input once its events were acted on: the
// engine's error closes the connection, or what was not consumed is kept.
func (ws *WSConn) afterEvents(c *conn, rest []byte, err error) {
	if err != nil {
		ce, _ := err.(*websocket.CloseError)
		if ce != nil {
			ws.end(ce.Code, ce.Reason)
		}
		ws.closing = true // the engine appended our close: write it, then close
		c.dropIn()
		return
	}
	c.keep(rest) // only now: events alias data
	ws.lockEng()
	ws.eng.Recycle()
	ws.unlockEng()
}

// event acts on one thing the engine reported.
func (ws *WSConn) event(e *websocket.Event) {
	switch e.Kind {
	case websocket.EventMessage:
		ws.c.l.srv.counters.wsMessagesIn.Add(1)
		if f := ws.cfg.OnMessage; f != nil {
			f(ws, WSMessageType(e.Op), e.Payload)
		}
	case websocket.EventClose:
		// The engine appended the reply if we had not sent ours: the
		// server closes the TCP connection first (RFC 6455 section 7.1.1).
		ws.end(e.Code, string(e.Payload))
		ws.closing = true
	}
}

// end calls OnClose once, and fails later sends.
func (ws *WSConn) end(code int, reason string) {
	ws.mu.Lock()
	ws.gone = true
	var groups []*WSGroup
	if ws.groups != nil {
		groups = *ws.groups
		ws.groups = nil
	}
	ws.mu.Unlock()
	for _, g := range groups {
		g.Remove(ws)
	}
	if ws.ended {
		return
	}
	ws.ended = true
	if f := ws.cfg.OnClose; f != nil {
		f(ws, code, reason)
	}
}

// reading: not while output the client does not read piles up, nor once
// the connection is closing.
func (ws *WSConn) reading(c *conn) bool {
	return !ws.closing && !(c.blocked && len(c.out) >= ws.cfg.maxBuffered())
}

func (ws *WSConn) writable(c *conn, now int64) bool {
	ws.endTurn(c, now)
	return c.state.Load() != stClosed
}

// endTurn writes what the turn produced and the outbox, then closes a
// connection whose close handshake is over, or sets its deadline.
func (ws *WSConn) endTurn(c *conn, now int64) {
	if c.state.Load() == stClosed || c.lingering {
		return
	}
	ws.takeBox(&c.out)
	if !c.l.writeQueued(c, &ws.blockedSince, now) {
		return
	}
	ws.unwritten.Store(int32(min(len(c.out), 1<<30)))
	if ws.idleTurn {
		ws.idleTurn = false
		if c.tls != nil && !c.blocked {
			c.tls.Rest()
		}
	}
	if ws.closing && !c.blocked {
		c.l.closeConn(c)
		return
	}
	c.l.setDeadline(c, ws.nextDeadline(now))
}

// takeBox moves the outbox into *dst (c.out, or an HTTP/2 stream's
// wsOut), and a Close asked for into a close frame.
func (ws *WSConn) takeBox(dst *[]byte) {
	ws.mu.Lock()
	ws.queued = false // sends from now on post again (see serve)
	if ws.box != nil {
		if len(ws.box.b) > 0 {
			if *dst == nil {
				*dst = getBuf()
			}
			*dst = append(*dst, ws.box.b...)
		}
		putBuffer(ws.box)
		ws.box = nil
	}
	closeQ, code, reason := ws.closeQ, int(ws.closeCode), ""
	if ws.closeReason != nil {
		reason = *ws.closeReason
	}
	ws.closeQ = false
	ws.mu.Unlock()
	if closeQ && !ws.eng.CloseSent() {
		if *dst == nil {
			*dst = getBuf()
		}
		ws.lockEng()
		*dst = ws.eng.AppendClose(*dst, code, reason)
		ws.unlockEng()
		ws.closeBy = ws.c.l.e.now() + wsCloseWait
	}
}

// nextDeadline is when the wheel looks at the connection next: the ping
// (or the close for want of a pong), the close reply's wait, WriteTimeout
// for output the socket does not take.
func (ws *WSConn) nextDeadline(now int64) int64 {
	cfg := &ws.c.l.srv.cfg
	next := now + int64(cfg.IdleTimeout)
	if p := int64(ws.cfg.pingInterval()); p > 0 {
		next = ws.lastRead + p
		if ws.pingSent {
			next = ws.lastRead + 2*p
		}
	}
	if ws.closeBy > 0 {
		next = min(next, ws.closeBy)
	}
	if ws.c.blocked {
		next = min(next, ws.blockedSince+int64(cfg.WriteTimeout))
	}
	return next
}

func (ws *WSConn) due(c *conn, now int64) int64 {
	cfg := &c.l.srv.cfg
	p := int64(ws.cfg.pingInterval())
	switch {
	case c.blocked && now-ws.blockedSince >= int64(cfg.WriteTimeout),
		ws.closeBy > 0 && now >= ws.closeBy,
		p > 0 && ws.pingSent && now-ws.lastRead >= 2*p:
		c.l.closeConn(c) // release reports 1006
		return 0
	case p > 0 && !ws.pingSent && now-ws.lastRead >= p:
		ws.pingSent = true
		if c.out == nil {
			c.out = getBuf()
		}
		c.out = websocket.AppendFrame(c.out, websocket.OpPing, true, false, nil, nil)
		ws.idleTurn = true // nothing else was due: idle until the pong
	}
	ws.endTurn(c, now)
	if c.state.Load() == stClosed {
		return 0
	}
	return c.deadline.Load()
}

// shutdown is Shutdown's step: a close frame with 1001 (going away), then
// the client's reply or wsCloseWait.
func (ws *WSConn) shutdown(c *conn, begin bool) (took, began bool) {
	ws.mu.Lock()
	if !ws.gone && !begin {
		ws.mu.Unlock()
		return false, false
	}
	began = !ws.gone
	if !ws.closeQ && !ws.eng.CloseSent() {
		ws.closeQ, ws.closeCode, ws.closeReason = true, int32(websocket.CloseGoingAway), &shuttingDown
	}
	ws.gone = true
	ws.mu.Unlock()
	ws.endTurn(c, c.l.e.now())
	return true, began
}

// posted writes what other goroutines queued; for a connection upgraded
// on a worker, it is where the loop opens it.
func (ws *WSConn) posted(c *conn, now int64) {
	ws.mu.Lock()
	ws.queued = false
	back := ws.back
	ws.back = false
	ws.mu.Unlock()
	if c.state.Load() != stIdle {
		return // closed; or a moved callback's still, which posts it again
	}
	if back {
		// A callback moved off the loop has finished the turn it began:
		// read what came meanwhile (its edges passed), then write.
		c.l.readTurn(c, false, now)
		return
	}
	if !ws.opened {
		if ws.serveIn(c, now) {
			c.l.readTurn(c, false, now) // an edge may have passed while the worker had it
		}
		return
	}
	ws.endTurn(c, now)
}

// release ends the connection: OnClose with 1006 if no close handshake
// reported another code, and the buffers go back.
func (ws *WSConn) release(c *conn) {
	if !ws.released {
		ws.released = true
		c.l.srv.counters.wsOpen.Add(-1)
	}
	ws.end(websocket.CloseAbnormal, "")
	ws.mu.Lock()
	if ws.box != nil {
		putBuffer(ws.box)
		ws.box = nil
	}
	ws.mu.Unlock()
	ws.lockEng()
	ws.eng.Release()
	ws.unlockEng()
}

// lockEng and unlockEng guard the engine where senders use it too
// (engLocked); elsewhere it is the loop's alone.
func (ws *WSConn) lockEng() {
	if ws.engLocked {
		ws.mu.Lock()
	}
}

func (ws *WSConn) unlockEng() {
	if ws.engLocked {
		ws.mu.Unlock()
	}
}

// canUpgrade: an HTTP/1.1 connection of the Linux engine switches, and
// an HTTP/2 extended CONNECT stream does.
func (c *Ctx) canUpgrade() bool {
	if _, ok := c.peer.(*conn); !ok {
		return false
	}
	if c.onStream == nil {
		return true
	}
	st, ok := c.onStream.(*h2stream)
	return ok && st.tunnel
}

// wake has the loop write what was queued: the connection posted, or on
// HTTP/2 the stream.
func (ws *WSConn) wake() {
	if ws.st != nil {
		ws.st.post(nil, 0)
		return
	}
	ws.c.l.post(ws.c)
}

// Subprotocol returns the subprotocol chosen in the handshake, or "".
func (ws *WSConn) Subprotocol() string {
	if i := int(ws.subproto); i >= 0 && i < len(ws.cfg.Subprotocols) {
		return ws.cfg.Subprotocols[i]
	}
	return ""
}

// RemoteAddr returns the client's address.
func (ws *WSConn) RemoteAddr() net.Addr { return ws.c.remoteAddr() }

// SetValue keeps v with the connection, for the application's own state.
func (ws *WSConn) SetValue(v any) {
	ws.mu.Lock()
	ws.value = v
	ws.mu.Unlock()
}

// Value returns what SetValue kept, or nil.
func (ws *WSConn) Value() any {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.value
}
