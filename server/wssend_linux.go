//go:build linux

package server

import (
	"sync"

	"github.com/gust-http/gust/internal/websocket"
)

// Sending on a WebSocket from any goroutine: frames go into the
// connection's outbox under its lock, and the connection is posted to its
// loop (once per batch), which writes the outbox at the end of its turn.
// A callback on the loop uses the same path; its loop writes the outbox
// before it goes on to other connections.

// Send queues one message of type typ with data (copied: the caller may
// reuse it at once). It fails with ErrWSClosed once the connection is
// closing, and with ErrWSBufferFull, dropping the message, while the
// client has not read MaxBuffered bytes queued before.
func (ws *WSConn) Send(typ WSMessageType, data []byte) error {
	return ws.queue(websocket.Opcode(typ), data, nil)
}

// SendText queues a text message (s must be valid UTF-8).
func (ws *WSConn) SendText(s string) error { return ws.Send(WSText, stringBytes(s)) }

// Ping queues a ping with data (at most 125 bytes); the client's pong is
// not reported.
func (ws *WSConn) Ping(data []byte) error {
	if len(data) > websocket.MaxControlPayload {
		data = data[:websocket.MaxControlPayload]
	}
	return ws.queue(websocket.OpPing, data, nil)
}

// Close starts the close handshake with code and reason (RFC 6455
// section 7.4; reason at most 123 bytes): the client's reply, or two
// seconds, closes the connection, and OnClose reports the client's code.
func (ws *WSConn) Close(code int, reason string) error {
	ws.mu.Lock()
	if ws.gone {
		ws.mu.Unlock()
		return ErrWSClosed
	}
	ws.gone = true
	ws.closeQ, ws.closeCode = true, int32(code)
	if reason != "" {
		ws.closeReason = &reason
	}
	post := !ws.queued
	ws.queued = true
	ws.mu.Unlock()
	if post {
		ws.wake()
	}
	return nil
}

// queue appends one frame to the outbox: op and payload framed by the
// connection's engine (compressed if negotiated), or frame as it is when
// given (a broadcast's, made once).
func (ws *WSConn) queue(op websocket.Opcode, payload, frame []byte) error {
	ws.mu.Lock()
	if ws.gone {
		ws.mu.Unlock()
		return ErrWSClosed
	}
	// The outbox and what the loop could not write yet count together.
	if ws.boxLen()+ws.pendingOut() > ws.cfg.maxBuffered() {
		ws.mu.Unlock()
		ws.c.l.srv.counters.wsDropped.Add(1)
		return ErrWSBufferFull
	}
	if ws.box == nil {
		ws.box = getBuffer()
	}
	box := &ws.box.b
	switch {
	case frame != nil:
		*box = append(*box, frame...)
	case op == websocket.OpPing || !ws.deflate:
		*box = websocket.AppendFrame(*box, op, true, false, payload, nil)
	case ws.sharedDeflate:
		*box = websocket.AppendCompressedFrame(*box, op, payload)
	default:
		// Context takeover: the engine's own compressor, under mu (the
		// loop takes mu for the engine too: engLocked).
		var err error
		if *box, err = ws.eng.AppendMessage(*box, op, payload); err != nil {
			ws.mu.Unlock()
			return err
		}
	}
	post := !ws.queued
	ws.queued = true
	ws.mu.Unlock()
	if op != websocket.OpPing {
		ws.c.l.srv.counters.wsMessagesOut.Add(1)
	}
	if post {
		ws.wake()
	}
	return nil
}

// boxLen is the outbox's length; mu held.
func (ws *WSConn) boxLen() int {
	if ws.box == nil {
		return 0
	}
	return len(ws.box.b)
}

// pendingOut is what the loop holds unwritten for the client, read
// without the loop's ownership: an estimate, set by the loop each turn.
func (ws *WSConn) pendingOut() int { return int(ws.unwritten.Load()) }

// WSGroup is a set of WebSocket connections that receive broadcasts: a
// message is framed, and compressed, once for all of them. A connection
// leaves its groups when it ends. The zero value is an empty group; a
// WSGroup is safe for concurrent use.
type WSGroup struct {
	mu    sync.Mutex
	conns []*WSConn
	index map[*WSConn]int
}

// Add puts ws in g.
func (g *WSGroup) Add(ws *WSConn) {
	ws.mu.Lock()
	if ws.gone {
		ws.mu.Unlock()
		return
	}
	if ws.groups == nil {
		ws.groups = new([]*WSGroup)
	}
	*ws.groups = append(*ws.groups, g)
	ws.mu.Unlock()
	g.mu.Lock()
	if g.index == nil {
		g.index = map[*WSConn]int{}
	}
	if _, ok := g.index[ws]; !ok {
		g.index[ws] = len(g.conns)
		g.conns = append(g.conns, ws)
	}
	g.mu.Unlock()
}

// Remove takes ws out of g.
func (g *WSGroup) Remove(ws *WSConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i, ok := g.index[ws]
	if !ok {
		return
	}
	last := len(g.conns) - 1
	g.conns[i] = g.conns[last]
	g.index[g.conns[i]] = i
	g.conns[last] = nil
	g.conns = g.conns[:last]
	delete(g.index, ws)
}

// Len returns the number of connections in g.
func (g *WSGroup) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// Broadcast sends one message to every connection in g: framed once, and
// compressed once (without context takeover) for the receivers that
// negotiated permessage-deflate without context takeover; a receiver
// that keeps its context gets it compressed on its own. It returns how
// many receivers queued it; the others were closing or past MaxBuffered.
func (g *WSGroup) Broadcast(typ WSMessageType, data []byte) int {
	op := websocket.Opcode(typ)
	plain := websocket.AppendFrame(nil, op, true, false, data, nil)
	var packed []byte
	g.mu.Lock()
	defer g.mu.Unlock()
	sent := 0
	for _, ws := range g.conns {
		var err error
		switch {
		case !ws.deflate:
			err = ws.queue(op, nil, plain)
		case ws.sharedDeflate:
			if packed == nil {
				packed = websocket.AppendCompressedFrame(nil, op, data)
			}
			err = ws.queue(op, nil, packed)
		default:
			err = ws.queue(op, data, nil)
		}
		if err == nil {
			sent++
		}
	}
	return sent
}
