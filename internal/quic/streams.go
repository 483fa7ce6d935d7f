package quic

import "errors"

// Errors of the stream API.
var (
	ErrStreamLimit    = errors.New("quic: the peer's stream limit is reached")
	ErrNoStream       = errors.New("quic: no such stream, or it is closed")
	ErrStreamClosed   = errors.New("quic: stream closed for writing")
	ErrNotConnected   = errors.New("quic: the handshake is not complete")
	ErrWrongStreamEnd = errors.New("quic: the stream does not go this way")
)

// maxFreeStreams bounds the streams kept for reuse.
const maxFreeStreams = 64

// streamSet holds a connection's streams, both ends', and the stream
// limits both ways (RFC 9000 section 4.6).
type streamSet struct {
	c     *Conn
	m     map[uint64]*stream
	sendq []*stream
	free  []*stream // streams done with, their buffers kept for the next ones

	opened     [2]uint64 // streams this end opened: bidi, uni
	limit      [2]uint64 // the peer's MAX_STREAMS
	blocked    [2]bool   // STREAMS_BLOCKED owed
	peerOpened [2]uint64 // streams the peer opened
	peerLimit  [2]uint64 // the MAX_STREAMS given
	peerClosed [2]uint64 // peer streams done with
	limitOwed  [2]bool   // MAX_STREAMS owed

	initSendLocal, initSendRemote, initSendUni uint64 // the peer's initial windows
}

func (ss *streamSet) init(c *Conn) {
	ss.c = c
	ss.m = make(map[uint64]*stream)
	ss.peerLimit = [2]uint64{c.cfg.MaxStreamsBidi, c.cfg.MaxStreamsUni}
}

// setPeerLimits applies the peer's transport parameters.
func (ss *streamSet) setPeerLimits(p *TransportParameters) {
	ss.limit = [2]uint64{p.InitialMaxStreamsBidi, p.InitialMaxStreamsUni}
	ss.initSendLocal = p.InitialMaxStreamDataBidiRemote // for streams this end opens
	ss.initSendRemote = p.InitialMaxStreamDataBidiLocal // for streams the peer opens
	ss.initSendUni = p.InitialMaxStreamDataUni
}

// dir returns 0 for a bidirectional stream ID, 1 for a unidirectional one.
func dir(id uint64) int { return int(id>>1) & 1 }

// isLocal reports whether this end opened stream id.
func (ss *streamSet) isLocal(id uint64) bool { return IsClientStream(id) == ss.c.isClient }

// newStream makes the state of stream id.
func (ss *streamSet) newStream(id uint64) *stream {
	local := ss.isLocal(id)
	uni := IsUniStream(id)
	var s *stream
	if n := len(ss.free); n > 0 {
		s = ss.free[n-1]
		ss.free = ss.free[:n-1]
		*s = stream{
			id: id, local: local, hasSend: local || !uni, hasRecv: !local || !uni,
			send: sendBuf{buf: s.send.buf[:0], acked: s.send.acked[:0], lost: s.send.lost[:0]},
			recv: recvBuf{buf: s.recv.buf[:0], have: s.recv.have[:0]},
		}
	} else {
		s = &stream{id: id, local: local, hasSend: local || !uni, hasRecv: !local || !uni}
	}
	s.window = ss.c.cfg.MaxStreamData
	s.recvMax = s.window
	switch {
	case uni:
		s.sendMax = ss.initSendUni
	case local:
		s.sendMax = ss.initSendLocal
	default:
		s.sendMax = ss.initSendRemote
	}
	ss.m[id] = s
	return s
}

// OpenStream opens a stream of this end, unidirectional if uni, and
// returns its ID; ErrStreamLimit while the peer's limit holds.
func (c *Conn) OpenStream(uni bool) (uint64, error) {
	if !c.handshakeComplete || c.state != stateActive {
		return 0, ErrNotConnected
	}
	ss := &c.strms
	d := 0
	if uni {
		d = 1
	}
	if ss.opened[d] >= ss.limit[d] {
		ss.blocked[d] = true
		return 0, ErrStreamLimit
	}
	id := ss.opened[d]<<2 | uint64(d)<<1
	if !c.isClient {
		id |= 1
	}
	ss.opened[d]++
	ss.newStream(id)
	return id, nil
}

// peerStream returns the stream a frame of the peer names, opening the
// peer's streams up to it; nil for a stream already done with. A frame
// needing a send half (MAX_STREAM_DATA, STOP_SENDING) has send set.
func (ss *streamSet) peerStream(id uint64, send bool) (*stream, error) {
	local := ss.isLocal(id)
	if IsUniStream(id) && local != send {
		return nil, &TransportError{Code: StreamStateError, Reason: "frame for the wrong direction of a unidirectional stream"}
	}
	d, idx := dir(id), id>>2
	if local {
		if idx >= ss.opened[d] {
			return nil, &TransportError{Code: StreamStateError, Reason: "frame for a stream not yet opened"}
		}
		return ss.m[id], nil
	}
	if idx >= ss.peerLimit[d] {
		return nil, &TransportError{Code: StreamLimitError, Reason: "stream past MAX_STREAMS"}
	}
	for ss.peerOpened[d] <= idx {
		nid := ss.peerOpened[d]<<2 | id&3
		ss.peerOpened[d]++
		ss.newStream(nid)
		ss.c.event(EventStreamOpened, nid)
	}
	return ss.m[id], nil
}

// queue puts s in the send queue.
func (ss *streamSet) queue(s *stream) {
	if !s.queued {
		s.queued = true
		ss.sendq = append(ss.sendq, s)
	}
}

// maybeDone forgets s once both halves are done, and raises the peer's
// stream limit for a stream of the peer.
func (ss *streamSet) maybeDone(s *stream) {
	if !s.sendDone() || !s.recvDone() || ss.m[s.id] != s {
		return
	}
	delete(ss.m, s.id)
	if !s.queued && len(ss.free) < maxFreeStreams {
		// Nothing points to it now: packets in flight and events name
		// streams by ID, and the send queue only holds queued ones.
		ss.free = append(ss.free, s)
	}
	if !s.local {
		d := dir(s.id)
		ss.peerClosed[d]++
		limit := [2]uint64{ss.c.cfg.MaxStreamsBidi, ss.c.cfg.MaxStreamsUni}[d]
		if ss.peerClosed[d]+limit >= ss.peerLimit[d]+max(1, limit/4) {
			ss.peerLimit[d] = ss.peerClosed[d] + limit
			ss.limitOwed[d] = true
		}
	}
}

// Write queues p on stream id and returns how much it took: all of it,
// unless the stream's send buffer is full (EventStreamWritable tells when
// it drains).
func (c *Conn) Write(id uint64, p []byte) (int, error) {
	s := c.strms.m[id]
	switch {
	case c.state >= stateClosing:
		return 0, c.err
	case s == nil:
		return 0, ErrNoStream
	case !s.hasSend:
		return 0, ErrWrongStreamEnd
	case s.peerStopped:
		return 0, &StreamError{StreamID: id, Code: s.peerStop, Stopped: true}
	case s.send.fin || s.resetOwed || s.resetSent:
		return 0, ErrStreamClosed
	}
	n := min(len(p), c.cfg.MaxSendBuffer-s.send.buffered())
	if n < len(p) {
		s.wantWrite = true
	}
	if n > 0 {
		s.send.write(p[:n])
		c.strms.queue(s)
	}
	return n, nil
}

// CloseWrite ends stream id's sending half: a FIN follows the data.
func (c *Conn) CloseWrite(id uint64) error {
	s := c.strms.m[id]
	if s == nil {
		return ErrNoStream
	}
	if !s.hasSend {
		return ErrWrongStreamEnd
	}
	if !s.send.fin {
		s.send.fin = true
		c.strms.queue(s)
	}
	return nil
}

// Read copies what arrived on stream id, in order, into p; fin reports the
// end of the stream reached. A stream the peer reset returns a
// *StreamError.
func (c *Conn) Read(id uint64, p []byte) (n int, fin bool, err error) {
	s := c.strms.m[id]
	if s == nil {
		return 0, false, ErrNoStream
	}
	if !s.hasRecv {
		return 0, false, ErrWrongStreamEnd
	}
	s.readQueued = false
	if s.peerReset {
		s.resetRead = true
		c.strms.maybeDone(s)
		return 0, false, &StreamError{StreamID: id, Code: s.peerCode}
	}
	n = s.recv.read(p)
	if n > 0 {
		c.flow.onConsumed(uint64(n))
		if r := s.recv.readOff; r+s.window/2 > s.recvMax && !s.recv.hasFinal {
			s.recvMax = r + s.window
			s.maxDataOwed = true
			c.strms.queue(s)
		}
	}
	fin = s.recv.finished()
	if fin {
		s.finRead = true
		c.strms.maybeDone(s)
	}
	return n, fin, nil
}

// Readable returns how many bytes Read would return on stream id now.
func (c *Conn) Readable(id uint64) int {
	if s := c.strms.m[id]; s != nil {
		return s.recv.readable()
	}
	return 0
}

// ResetStream abandons stream id's sending half with an application error
// code (RESET_STREAM).
func (c *Conn) ResetStream(id, code uint64) error {
	s := c.strms.m[id]
	if s == nil {
		return ErrNoStream
	}
	if !s.hasSend {
		return ErrWrongStreamEnd
	}
	c.resetSend(s, code)
	return nil
}

// resetSend resets s's sending half, unless already reset or done.
func (c *Conn) resetSend(s *stream, code uint64) {
	if s.resetOwed || s.resetSent || s.send.done() {
		return
	}
	s.resetOwed, s.resetCode, s.resetFinal = true, code, s.send.next
	s.send.reset()
	c.strms.queue(s)
}

// StopSending asks the peer to stop sending on stream id (STOP_SENDING);
// what arrives after is dropped.
func (c *Conn) StopSending(id, code uint64) error {
	s := c.strms.m[id]
	if s == nil {
		return ErrNoStream
	}
	if !s.hasRecv {
		return ErrWrongStreamEnd
	}
	if !s.stopped && !s.recv.finished() {
		s.stopped, s.stopOwed, s.stopCode = true, true, code
		h := s.recv.highest()
		c.flow.onConsumed(h - s.recv.readOff)
		s.recv.skip(h)
		c.strms.queue(s)
	}
	return nil
}

// readable reports a stream to the application once per Read.
func (ss *streamSet) readable(s *stream) {
	if !s.readQueued {
		s.readQueued = true
		ss.c.event(EventStreamReadable, s.id)
	}
}

// SendsAcked reports whether the peer has acknowledged all this end wrote
// on its streams, their FINs and resets too: a CONNECTION_CLOSE ends what
// is still in flight, so a server closing gracefully (after an HTTP/3
// GOAWAY) waits for it.
func (c *Conn) SendsAcked() bool {
	for _, s := range c.strms.m {
		switch {
		case !s.hasSend:
		case s.resetOwed || s.resetSent:
			if !s.resetAcked {
				return false
			}
		case s.send.fin:
			if !s.send.done() {
				return false
			}
		case s.send.buffered() > 0:
			return false
		}
	}
	return true
}
