package main

import (
	"errors"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
)

// misbehaviours are the connection kinds, by -kind.
var misbehaviours = map[string]misbehaviour{
	"streams":     streamFlood,
	"flowcontrol": flowControl,
	"qpack":       qpackBlowUp,
	"noack":       noAck,
	"sparse":      sparse,
}

// streamFlood opens every request stream the server allows, their
// requests left unfinished so that none frees its place, then one past
// the limit: RFC 9000 section 4.6 has the server close the connection
// with STREAM_LIMIT_ERROR.
func streamFlood(a *attackConn, _ int64, end time.Time, t *tally) {
	if err := a.handshake(end); err != nil {
		t.add(err.Error(), 1)
		return
	}
	req := http3.AppendHeaders(nil, requestSection())
	n := a.qc.StreamsAvailable(false)
	for range n {
		id, err := a.qc.OpenStream(false)
		if err != nil {
			t.add("open: "+err.Error(), 1)
			return
		}
		a.qc.Write(id, req)
	}
	a.flush(time.Now())
	// Client-initiated bidirectional stream n (ID 4n) is the first the
	// limit of n does not allow.
	if err := a.raw(quic.AppendStreamFrame(nil, uint64(4*n), 0, req, true, true)); err != nil {
		t.add(err.Error(), 1)
		return
	}
	t.add(a.waitClose(end), 1)
}

// flowControl sends stream data past the server's windows (RFC 9000
// section 4.1), one way in odd connections and the other in even ones: a
// byte past one stream's window, or streams each within theirs that
// together go past the connection's. Either must close the connection
// with FLOW_CONTROL_ERROR.
func flowControl(a *attackConn, seq int64, end time.Time, t *tally) {
	if err := a.handshake(end); err != nil {
		t.add(err.Error(), 1)
		return
	}
	p := a.qc.PeerTransportParameters()
	win := p.InitialMaxStreamDataBidiRemote // the window of the streams a client opens
	n := 1
	if win > 0 {
		n = int(p.InitialMaxData/win) + 1
	}
	var frames []byte
	if seq%2 == 1 || win == 0 || n > a.qc.StreamsAvailable(false) {
		id, _ := a.qc.OpenStream(false)
		frames = quic.AppendStreamFrame(nil, id, win, []byte{0}, false, true)
	} else {
		for range n {
			id, _ := a.qc.OpenStream(false)
			frames = quic.AppendStreamFrame(frames, id, win-1, []byte{0}, false, true)
		}
	}
	a.flush(time.Now())
	if err := a.raw(frames); err != nil {
		t.add(err.Error(), 1)
		return
	}
	t.add(a.waitClose(end), 1)
}

// sparse stays within the server's windows but sends each stream only
// its last byte: one byte at the end of every stream window until the
// connection's is used up (but 64 bytes, for the control streams). It is
// no violation (RFC 9000 section 4.1 counts the highest offset); what it
// shows is what the server keeps for a few hundred bytes sent, held until
// the run ends.
func sparse(a *attackConn, _ int64, end time.Time, t *tally) {
	if err := a.handshake(end); err != nil {
		t.add(err.Error(), 1)
		return
	}
	p := a.qc.PeerTransportParameters()
	win := p.InitialMaxStreamDataBidiRemote
	if win == 0 {
		t.add("no stream window", 1)
		return
	}
	// The control streams' bytes count against MAX_DATA too: 64 left
	// for them.
	budget := p.InitialMaxData - min(p.InitialMaxData, 64)
	n := min(int(budget/win), a.qc.StreamsAvailable(false))
	var frames []byte
	for range n {
		id, _ := a.qc.OpenStream(false)
		frames = quic.AppendStreamFrame(frames, id, win-1, []byte{0}, false, true)
	}
	if rest := budget - uint64(n)*win; rest > 0 && a.qc.StreamsAvailable(false) > 0 {
		id, _ := a.qc.OpenStream(false)
		frames = quic.AppendStreamFrame(frames, id, rest-1, []byte{0}, false, true)
		n++
	}
	a.flush(time.Now())
	if err := a.raw(frames); err != nil {
		t.add(err.Error(), 1)
		return
	}
	t.max("bytes of STREAM frames a connection sent", float64(len(frames)))
	t.max("bytes of stream offsets a connection reached", float64(min(budget, uint64(n)*win)))
	a.exchange(a.closed, end, true)
	if a.closed() {
		t.add(outcome(a.qc.Err()), 1)
		return
	}
	t.add("still open when the run ended", 1)
}

// qpackFields is how many indexed field lines a blown-up section repeats:
// each is one byte on the wire (static entry 58,
// strict-transport-security) that counts 101 bytes against the server's
// limit (RFC 9114 section 4.2.2), 2,000 of them about 200 KB.
const qpackFields = 2000

// qpackBlowUp sends up to 10 requests whose field sections decode past
// any sensible limit, which the server refuses on their streams
// (H3_EXCESSIVE_LOAD, or a 431), then an insert on its QPACK encoder
// stream, which a dynamic table of capacity 0 does not allow: the server
// closes the connection with QPACK_ENCODER_STREAM_ERROR (RFC 9204 section
// 4.3).
func qpackBlowUp(a *attackConn, _ int64, end time.Time, t *tally) {
	if err := a.handshake(end); err != nil {
		t.add(err.Error(), 1)
		return
	}
	sec := requestSection()
	for range qpackFields {
		sec = append(sec, 0xc0|58)
	}
	req := http3.AppendHeaders(nil, sec)
	ids := make([]uint64, min(a.qc.StreamsAvailable(false), 10))
	for i := range ids {
		ids[i], _ = a.qc.OpenStream(false)
		a.qc.Write(ids[i], req)
		a.qc.CloseWrite(ids[i])
	}
	a.answers(ids, earlier(time.Now().Add(5*time.Second), end), t)
	enc, err := a.qc.OpenStream(true)
	if err != nil {
		t.add("open: "+err.Error(), 1)
		return
	}
	// Insert with Literal Name (RFC 9204 section 4.3.3): "x-a: b".
	a.qc.Write(enc, append(http3.AppendStreamType(nil, http3.StreamQPACKEncoder), 0x40|3, 'x', '-', 'a', 1, 'b'))
	t.add(a.waitClose(end), 1)
}

// answers reads the streams ids until each is answered or reset, or
// until by, and counts how each ended.
func (a *attackConn) answers(ids []uint64, by time.Time, t *tally) {
	done := make([]bool, len(ids))
	left := len(ids)
	buf := make([]byte, 4096)
	a.exchange(func() bool {
		for i, id := range ids {
			for !done[i] {
				n, fin, err := a.qc.Read(id, buf)
				var se *quic.StreamError
				switch {
				case errors.As(err, &se):
					t.add("stream reset by the server: "+http3.ErrCode(se.Code).String(), 1)
				case err != nil:
					t.add("stream: "+err.Error(), 1)
				case fin:
					t.add("stream answered", 1)
				case n == 0:
				}
				if err != nil || fin {
					done[i] = true
					left--
				}
				if n == 0 {
					break
				}
			}
		}
		return left == 0 || a.closed()
	}, by, true)
	if left > 0 {
		t.add("stream neither answered nor reset", left)
	}
}

// noAck never acknowledges what the server sends. Odd connections send
// their first flight (the ClientHello's Initials) and nothing else (but
// the Initials again after a Retry):
// before it has validated the address the server may send at most three
// times what it received (RFC 9000 section 8.1), and it gives up the
// handshake at its timeout. Even ones complete the handshake, send one
// request and then nothing at all: the server's congestion window and
// PTO backoff bound what it sends (RFC 9002), and its idle timeout ends
// the connection (RFC 9000 section 10.1). A connection ends when the
// server closes it or has sent nothing for its idle timeout and a
// second (before one is known, 10 s, gust's handshake timeout).
func noAck(a *attackConn, seq int64, end time.Time, t *tally) {
	silence := 11 * time.Second
	if seq%2 == 1 {
		a.flush(time.Now()) // the whole ClientHello: two datagrams with a post-quantum key share
		what, _ := a.listen(silence, end, true)
		t.add("before validation: "+what, 1)
		t.max("server bytes / client bytes before validation (RFC limit 3)", float64(a.recv)/float64(a.sent))
		return
	}
	if err := a.handshake(end); err != nil {
		t.add(err.Error(), 1)
		return
	}
	id, _ := a.qc.OpenStream(false)
	a.qc.Write(id, http3.AppendHeaders(nil, requestSection()))
	a.qc.CloseWrite(id)
	a.flush(time.Now()) // the last datagrams sent: the request, the last ACKs
	if ms := a.qc.PeerTransportParameters().MaxIdleTimeout; ms > 0 {
		silence = time.Duration(ms)*time.Millisecond + time.Second
	}
	recv, start := a.recv, time.Now()
	what, last := a.listen(silence, end, false)
	t.add("after the handshake: "+what, 1)
	t.max("server bytes after the client's last datagram", float64(a.recv-recv))
	if what == "went silent" {
		t.max("seconds from the client's last datagram to the server's last", last.Sub(start).Seconds())
	}
}

// listen takes what the server sends, answering nothing (but following a
// Retry, with retry), until it closes the connection, has sent nothing
// for silence, or end; it returns which, and when the last datagram came.
func (a *attackConn) listen(silence time.Duration, end time.Time, retry bool) (string, time.Time) {
	retried := false
	last := time.Now()
	for {
		by := earlier(last.Add(silence), end)
		a.udp.SetReadDeadline(by)
		n, err := a.udp.Read(a.buf)
		if err != nil {
			if !time.Now().Before(end) {
				return "still open when the run ended", last
			}
			return "went silent", last
		}
		last = time.Now()
		a.recv += n
		a.qc.Receive(a.buf[:n], last)
		if retry && !retried && a.qc.Stats().Retried {
			retried = true
			a.flush(last) // the Initial again, with the Retry's token
		}
		if a.closed() {
			return outcome(a.qc.Err()), last
		}
	}
}
