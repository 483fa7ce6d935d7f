package load

import (
	"errors"
	"time"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/result"
)

// h3session is HTTP/3's session: a QUIC connection (internal/quic, on
// its own connected UDP socket through link) carrying internal/http3's
// client. start begins the QUIC handshake; room is 0 until it completes,
// then the streams the server's limit and Streams allow; send opens a
// bidirectional stream per request and writes its frames into it; feed
// takes one datagram and turns what the engine then reports into
// completions, resets, retries and GOAWAYs. Exchanges are kept by slot,
// found from their stream ID.
type h3session struct {
	qcfg    *quic.Config
	streams int
	c       *conn // the connection it is the session of
	qat     int64 // the engine's next timeout, in the loop's clock
	qidx    int   // its place in the loop's quicTimers; -1 when not there
	link    quicLink
	client  http3.Client
	st      *quicStats // the loop's, where handshakes and packets are counted

	xs   []h3slot
	free []int32
	live []int32
	byID map[uint64]int32

	started  time.Time // the handshake's start
	ready    bool      // the handshake completed and the control stream is open
	goAway   bool
	goAwayID uint64 // the lowest GOAWAY's stream ID, once goAway
	closedBy error  // the engine's error once the connection ended

	h3req  *request // the request encoded in frames
	frames []byte   // HEADERS (and DATA) of h3req, encoded once
	sec    []byte
	buf    []byte // stream reads
	cur    h3reader
}

// h3slot is one exchange in flight on a stream.
type h3slot struct {
	x       exchange
	id      uint64
	pos     int32
	use     bool
	status  int
	rs      http3.RequestStream
	pending []byte // request bytes the stream's window has not taken yet
}

// h3reader is the ResponseHandler of the slot being read, kept in the
// session so that handing it over allocates nothing.
type h3reader struct{ sl *h3slot }

func (r *h3reader) Informational(*http3.ResponseHead) {}
func (r *h3reader) Headers(h *http3.ResponseHead)     { r.sl.status = h.Status }
func (r *h3reader) Data([]byte)                       {}
func (r *h3reader) Trailers([]http3.Field)            {}
func (r *h3reader) End()                              {}

func newH3Session(qcfg *quic.Config, streams int, io *quicBatches, st *quicStats) *h3session {
	s := &h3session{
		qcfg:    qcfg,
		streams: streams,
		st:      st,
		xs:      make([]h3slot, 0, streams),
		free:    make([]int32, 0, streams),
		live:    make([]int32, 0, streams),
		byID:    make(map[uint64]int32, streams),
		buf:     make([]byte, 16<<10),
		qidx:    -1,
	}
	s.link.io = io
	return s
}

// start writes nothing: the connection is ready once the QUIC handshake
// begun by begin has completed, and the control stream opened then.
func (s *h3session) start(out []byte) []byte { return out }

// begin starts the QUIC handshake: its first datagram goes out with the
// loop's next flush.
func (s *h3session) begin() {
	now := time.Now()
	qc, err := quic.NewClientConn(s.qcfg, now)
	if err != nil {
		s.closedBy = err
		return
	}
	s.link.qc, s.link.owed = qc, true
	s.started = now
}

func (s *h3session) room() int {
	if !s.ready || s.goAway || s.closedBy != nil {
		return 0
	}
	return min(s.streams-len(s.live), s.link.qc.StreamsAvailable(false))
}

func (s *h3session) inflight() int     { return len(s.live) }
func (s *h3session) at(i int) exchange { return s.xs[s.live[i]].x }
func (s *h3session) multiplexed() bool { return true }
func (s *h3session) stalled() bool     { return false }
func (s *h3session) closing() bool     { return s.goAway || s.closedBy != nil }
func (s *h3session) eof(sink)          {}

func (s *h3session) reset() {
	s.countEnd()
	if s.goAway && s.closedBy == nil && s.st != nil {
		// Ended by this end once the server's GOAWAY was answered: counted
		// by the GOAWAY, as a close the server made would be by its code.
		s.st.closes[closeGoAway]++
	}
	for _, t := range s.live {
		s.xs[t].use = false
		s.free = append(s.free, t)
	}
	s.live = s.live[:0]
	clear(s.byID)
	s.client = http3.Client{}
	s.ready, s.goAway, s.closedBy = false, false, nil
	if s.link.qc != nil {
		s.link.qc.Abandon() // its TLS goroutine, if the handshake left one, ends with it
	}
	s.link.qc = nil
}

// closeConn ends a connection still open, with H3_NO_ERROR, before its
// socket closes, so that the server frees it at once rather than at its
// idle timeout.
func (s *h3session) closeConn() {
	if s.link.qc == nil || s.link.qc.Closed() {
		return
	}
	s.link.qc.Close(uint64(http3.ErrCodeNo), "", time.Now())
	s.link.Write(nil)
}

// countEnd adds a finished connection's packets to the loop's counts.
func (s *h3session) countEnd() {
	if s.link.qc != nil && s.st != nil {
		s.st.add(s.link.qc.Stats())
	}
}

// send opens a stream for req and writes its frames: the HEADERS (QPACK
// with the static table only) and the body in one DATA frame, then the
// stream's FIN. The frames of the run's one request are encoded once.
func (s *h3session) send(out []byte, req *request, x exchange) []byte {
	qc := s.link.qc
	id, err := qc.OpenStream(false)
	if err != nil {
		return out // room said one could be opened; the exchange would time out
	}
	t := s.add(x, id)
	sl := &s.xs[t]
	head := string(req.head.Method) == "HEAD"
	if err := s.client.OpenRequest(&sl.rs, id, head); err != nil {
		return out
	}
	frames := s.frames
	if req != s.h3req || !req.kept {
		frames = s.encode(frames[:0], req)
		if req.kept {
			s.h3req, s.frames = req, frames
		} else {
			s.h3req, s.frames = nil, frames
		}
	}
	n, _ := qc.Write(id, frames)
	if n < len(frames) {
		sl.pending = append(sl.pending[:0], frames[n:]...)
	} else {
		qc.CloseWrite(id)
	}
	s.link.owed = true
	return out
}

// encode appends req's HEADERS and DATA frames to b.
func (s *h3session) encode(b []byte, req *request) []byte {
	h := &req.head
	sec := http3.AppendSectionPrefix(s.sec[:0])
	sec = http3.AppendFieldBytes(sec, []byte(":method"), h.Method)
	sec = http3.AppendField(sec, ":scheme", "https")
	sec = http3.AppendFieldBytes(sec, []byte(":authority"), h.Host)
	sec = http3.AppendFieldBytes(sec, []byte(":path"), h.Target)
	var name [64]byte
	for _, f := range h.Headers {
		if len(f.Name) > len(name) || connectionField(f.Name) {
			continue
		}
		for i, c := range f.Name {
			name[i] = ascii.Lower(c)
		}
		sec = http3.AppendFieldBytes(sec, name[:len(f.Name)], f.Value)
	}
	s.sec = sec
	b = http3.AppendHeaders(b, sec)
	if len(req.body) > 0 {
		b = http3.AppendData(b, req.body)
	}
	return b
}

// connectionField reports a field HTTP/3 does not carry: Host (it is
// :authority) and the connection-specific ones (RFC 9114 section 4.2).
func connectionField(name []byte) bool {
	for _, s := range [...]string{"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"} {
		if ascii.EqualLower(name, s) {
			return true
		}
	}
	return false
}

// add records x on stream id in a free slot and returns its tag.
func (s *h3session) add(x exchange, id uint64) int32 {
	var t int32
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		t = int32(len(s.xs))
		s.xs = append(s.xs, h3slot{})
	}
	sl := &s.xs[t]
	sl.x, sl.id, sl.pos, sl.use, sl.status = x, id, int32(len(s.live)), true, 0
	sl.pending = sl.pending[:0]
	s.live = append(s.live, t)
	s.byID[id] = t
	return t
}

// take removes the exchange of tag and returns it.
func (s *h3session) take(t int32) exchange {
	sl := &s.xs[t]
	x, pos := sl.x, sl.pos
	last := s.live[len(s.live)-1]
	s.live[pos] = last
	s.xs[last].pos = pos
	s.live = s.live[:len(s.live)-1]
	sl.use = false
	delete(s.byID, sl.id)
	s.free = append(s.free, t)
	return x
}

// feed hands one datagram to the engine and delivers what follows.
func (s *h3session) feed(data []byte, k sink) (result.ErrorKind, bool) {
	if s.link.qc == nil {
		return result.ErrProtocol, false
	}
	s.link.qc.ReceiveECN(data, quic.ECN(s.link.mark), time.Now())
	s.link.owed = true
	return s.deliver(k)
}

// timeout runs the engine's timers that are due and delivers what
// follows (a connection idle too long, packets declared lost).
func (s *h3session) timeout(now time.Time, k sink) (result.ErrorKind, bool) {
	if s.link.qc == nil {
		return 0, true
	}
	s.link.qc.OnTimeout(now)
	s.link.owed = true
	return s.deliver(k)
}

// deliver turns the engine's events into the sink's calls; false, with
// the kind to count, when the connection ended.
func (s *h3session) deliver(k sink) (result.ErrorKind, bool) {
	qc := s.link.qc
	for {
		ev := qc.NextEvent()
		switch ev.Kind {
		case quic.EventNone:
			return 0, true
		case quic.EventHandshakeDone:
			if err := s.open(); err != nil {
				return s.fail(err)
			}
		case quic.EventStreamReadable:
			if err := s.readStream(ev.StreamID, k); err != nil {
				return s.fail(err)
			}
		case quic.EventStreamWritable:
			s.writePending(ev.StreamID)
		case quic.EventConnClosed:
			s.closedBy = ev.Err
			if s.st != nil {
				s.st.closed(ev.Err)
			}
			return closeKind(ev.Err), false
		}
	}
}

// open runs once the handshake is done: the control stream and its
// SETTINGS go out, and requests may be sent.
func (s *h3session) open() error {
	qc := s.link.qc
	if s.st != nil {
		st := qc.Stats()
		s.st.handshake(time.Since(s.started), st.Resumed, st.Retried)
	}
	id, err := qc.OpenStream(true)
	if err != nil {
		return err
	}
	b := s.client.Start(s.buf[:0])
	if n, err := qc.Write(id, b); err != nil || n < len(b) {
		return errors.New("http3: the control stream's SETTINGS did not fit its window")
	}
	s.ready = true
	return nil
}

// readStream reads what arrived on stream id: a response, or one of the
// server's unidirectional streams (control, QPACK).
func (s *h3session) readStream(id uint64, k sink) error {
	qc := s.link.qc
	if quic.IsUniStream(id) {
		for {
			n, fin, err := qc.Read(id, s.buf)
			if err != nil {
				return nil // a reset one-way stream: its type says whether it mattered
			}
			ignore, herr := s.client.ReceiveUni(id, s.buf[:n], fin)
			if herr != nil {
				return herr
			}
			if ignore {
				qc.StopSending(id, uint64(http3.ErrCodeStreamCreation))
				return nil
			}
			if n == 0 || fin {
				break
			}
		}
		// A server may send GOAWAY again with a lower ID (RFC 9114
		// section 5.2): the streams from the new one on are sent again.
		if g, ok := s.client.GoAway(); ok && (!s.goAway || g < s.goAwayID) {
			if !s.goAway {
				k.goAway(0)
			}
			s.goAway, s.goAwayID = true, g
			s.retryFrom(g, k)
		}
		return nil
	}
	t, ok := s.byID[id]
	if !ok {
		for { // a stream given up on: drain it
			if n, fin, err := qc.Read(id, s.buf); err != nil || fin || n == 0 {
				return nil
			}
		}
	}
	sl := &s.xs[t]
	s.cur.sl = sl
	for {
		n, fin, err := qc.Read(id, s.buf)
		if err != nil {
			var se *quic.StreamError
			switch {
			case errors.As(err, &se) && se.Code == uint64(http3.ErrCodeRequestRejected):
				k.retry(s.take(t)) // the server says it did not process it
			case errors.As(err, &se):
				k.reset(s.take(t), uint32(min(se.Code, 1<<32-1)))
			}
			return nil
		}
		if rerr := sl.rs.Receive(s.buf[:n], fin, &s.cur); rerr != nil {
			var se http3.StreamError
			if errors.As(rerr, &se) {
				qc.StopSending(id, uint64(se.Code))
				qc.ResetStream(id, uint64(se.Code))
				k.abandon(s.take(t), result.ErrProtocol)
				return nil
			}
			return rerr
		}
		if sl.rs.Done() {
			k.complete(s.take(t), sl.status)
			return nil
		}
		if n == 0 || fin {
			return nil
		}
	}
}

// writePending writes what is left of a request whose stream's window
// was full.
func (s *h3session) writePending(id uint64) {
	t, ok := s.byID[id]
	if !ok || len(s.xs[t].pending) == 0 {
		return
	}
	sl := &s.xs[t]
	n, _ := s.link.qc.Write(id, sl.pending)
	sl.pending = sl.pending[:copy(sl.pending, sl.pending[n:])]
	if len(sl.pending) == 0 {
		s.link.qc.CloseWrite(id)
	}
}

// retryFrom sends back the requests on streams at or above the server's
// GOAWAY: it promised it never processed them.
func (s *h3session) retryFrom(first uint64, k sink) {
	for i := 0; i < len(s.live); {
		t := s.live[i]
		if id := s.xs[t].id; id >= first {
			s.link.qc.ResetStream(id, uint64(http3.ErrCodeRequestCancelled))
			k.retry(s.take(t))
			continue
		}
		i++
	}
}

// fail closes the connection for an HTTP/3 connection error: the
// CONNECTION_CLOSE goes out with the loop's flush before the socket
// closes.
func (s *h3session) fail(err error) (result.ErrorKind, bool) {
	code := http3.CodeOf(err)
	s.link.qc.Close(uint64(code), err.Error(), time.Now())
	s.link.Write(nil)
	s.closedBy = err
	if s.st != nil {
		s.st.closed(err)
	}
	if code == http3.ErrCodeQPACKDecompressionFailed {
		return result.ErrCompression, false
	}
	return result.ErrProtocol, false
}

// expire gives up on the streams sent before cutoff: each is reset and
// counted as a read timeout.
func (s *h3session) expire(cutoff int64, k sink) {
	if s.link.qc == nil {
		return
	}
	for i := 0; i < len(s.live); {
		t := s.live[i]
		sl := &s.xs[t]
		if sl.x.sent >= cutoff {
			i++
			continue
		}
		s.link.qc.StopSending(sl.id, uint64(http3.ErrCodeRequestCancelled))
		s.link.qc.ResetStream(sl.id, uint64(http3.ErrCodeRequestCancelled))
		k.abandon(s.take(t), result.ErrReadTimeout)
		s.link.owed = true
	}
}

// closeKind classifies how a QUIC connection ended.
func closeKind(err error) result.ErrorKind {
	var ce *quic.CloseError
	switch {
	case errors.Is(err, quic.ErrIdleTimeout):
		return result.ErrReadTimeout
	case errors.Is(err, quic.ErrStatelessReset):
		return result.ErrReset
	case errors.As(err, &ce) && ce.Remote && ce.Application && ce.Code == uint64(http3.ErrCodeNo):
		return result.ErrClosed
	}
	return result.ErrProtocol
}
