package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
)

// attackConn is one QUIC connection to the server, driven by hand so that
// it can send what a well-behaved client never would.
type attackConn struct {
	qc         *quic.Conn
	udp        *net.UDPConn
	buf        []byte
	sent, recv int // UDP payload bytes each way
}

// dialAttack opens a connection's socket and client state; nothing is
// sent yet.
func dialAttack(to *net.UDPAddr) (*attackConn, error) {
	udp, err := net.DialUDP("udp", nil, to)
	if err != nil {
		return nil, err
	}
	// An idle timeout of an hour leaves the server's own to end the
	// connection (the smaller of the two applies, RFC 9000 section 10.1).
	qc, err := quic.NewClientConn(&quic.Config{TLSConfig: &tls.Config{ServerName: "localhost", InsecureSkipVerify: true,
		NextProtos: []string{"h3"}, MinVersion: tls.VersionTLS13}, MaxIdleTimeout: time.Hour}, time.Now())
	if err != nil {
		udp.Close()
		return nil, err
	}
	return &attackConn{qc: qc, udp: udp, buf: make([]byte, 65536)}, nil
}

// close lets the connection go without a word to the server, as an
// attacker would.
func (a *attackConn) close() {
	a.qc.Abandon()
	a.udp.Close()
}

// write sends one datagram.
func (a *attackConn) write(d []byte) {
	if n, err := a.udp.Write(d); err == nil {
		a.sent += n
	}
}

// flush sends every datagram the connection has to send: its ACKs
// included.
func (a *attackConn) flush(now time.Time) {
	for {
		d, ok := a.qc.AppendDatagram(nil, now)
		if !ok {
			return
		}
		a.write(d)
	}
}

// raw sends frames in a 1-RTT packet of their own.
func (a *attackConn) raw(frames []byte) error {
	d, err := a.qc.SealRawFrames(frames, time.Now())
	if err != nil {
		return err
	}
	a.write(d)
	return nil
}

// exchange runs the connection until cond holds or until by, and reports
// whether cond held. With acks it behaves as a client should (its ACKs,
// retransmissions and timers); without, it only takes what arrives, and
// sends nothing back.
func (a *attackConn) exchange(cond func() bool, by time.Time, acks bool) bool {
	for {
		now := time.Now()
		if acks {
			a.flush(now)
		}
		for ev := a.qc.NextEvent(); ev.Kind != quic.EventNone; ev = a.qc.NextEvent() {
		}
		if cond() {
			return true
		}
		if !now.Before(by) {
			return false
		}
		wake := by
		if t := a.qc.NextTimeout(); acks && !t.IsZero() && t.Before(wake) {
			wake = t
		}
		a.udp.SetReadDeadline(wake)
		if n, err := a.udp.Read(a.buf); err == nil {
			a.recv += n
			a.qc.Receive(a.buf[:n], time.Now())
		} else if acks {
			if t := a.qc.NextTimeout(); !t.IsZero() && !time.Now().Before(t) {
				a.qc.OnTimeout(time.Now())
			}
		}
	}
}

// handshake completes the handshake, opens the client's HTTP/3 control
// stream and waits for the server's, within 5 s and before end.
func (a *attackConn) handshake(end time.Time) error {
	if !a.exchange(a.qc.HandshakeComplete, earlier(time.Now().Add(5*time.Second), end), true) {
		if err := a.qc.Err(); err != nil {
			return fmt.Errorf("handshake: %w", err)
		}
		if !time.Now().Before(end) {
			return errors.New("handshake not done when the run ended")
		}
		return errors.New("handshake not done within 5 s")
	}
	id, err := a.qc.OpenStream(true)
	if err != nil {
		return err
	}
	a.qc.Write(id, http3.AppendControlStreamStart(nil, http3.DefaultSettings()))
	// The server's control stream (its first unidirectional stream, ID
	// 3) says it has this client's Finished, and so the keys to open
	// what SealRawFrames sends, which is never sent again.
	if !a.exchange(func() bool { return a.qc.Readable(3) > 0 || a.closed() }, earlier(time.Now().Add(5*time.Second), end), true) {
		if !time.Now().Before(end) {
			return errors.New("no control stream from the server when the run ended")
		}
		return errors.New("no control stream from the server within 5 s")
	}
	return nil
}

// closed reports whether the server has closed the connection (or it
// ended otherwise).
func (a *attackConn) closed() bool { return a.qc.Err() != nil }

// waitClose runs the connection until the server closes it, for at most
// 5 s or until end, and returns how it ended.
func (a *attackConn) waitClose(end time.Time) string {
	if !a.exchange(a.closed, earlier(time.Now().Add(5*time.Second), end), true) && !time.Now().Before(end) {
		return "still open when the run ended"
	}
	return outcome(a.qc.Err())
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// outcome names how a connection ended: the server's close code, or what
// else happened.
func outcome(err error) string {
	var ce *quic.CloseError
	switch {
	case err == nil:
		return "not closed within 5 s"
	case errors.As(err, &ce) && ce.Remote && ce.Application:
		return "closed by the server: " + http3.ErrCode(ce.Code).String()
	case errors.As(err, &ce) && ce.Remote:
		return "closed by the server: " + quic.TransportErrorCode(ce.Code).String()
	}
	return err.Error()
}

// requestSection is a GET / field section.
func requestSection() []byte {
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":method", "GET")
	sec = http3.AppendField(sec, ":scheme", "https")
	sec = http3.AppendField(sec, ":authority", "localhost")
	return http3.AppendField(sec, ":path", "/")
}

// tally counts what happened to the connections of a run, by name, and
// keeps the highest of some measures.
type tally struct {
	mu   sync.Mutex
	n    map[string]int
	high map[string]float64
}

// max keeps v as the highest of measure what, if it is.
func (t *tally) max(what string, v float64) {
	t.mu.Lock()
	if t.high == nil {
		t.high = make(map[string]float64)
	}
	if v > t.high[what] {
		t.high[what] = v
	}
	t.mu.Unlock()
}

func (t *tally) add(what string, n int) {
	t.mu.Lock()
	if t.n == nil {
		t.n = make(map[string]int)
	}
	t.n[what] += n
	t.mu.Unlock()
}

// String lists the counts, most first.
func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.n))
	for k := range t.n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return t.n[keys[i]] > t.n[keys[j]] || t.n[keys[i]] == t.n[keys[j]] && keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %d %s\n", t.n[k], k)
	}
	keys = keys[:0]
	for k := range t.high {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  highest %s: %.4g\n", k, t.high[k])
	}
	return b.String()
}

// pacer spaces the opening of new connections at rate a second, over all
// the workers.
type pacer struct {
	mu   sync.Mutex
	next time.Time
	gap  time.Duration
}

// wait blocks until the next opening is due and reports whether it comes
// before end.
func (p *pacer) wait(end time.Time) bool {
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.gap)
	p.mu.Unlock()
	if !at.Before(end) {
		return false
	}
	time.Sleep(time.Until(at))
	return true
}

// misbehaviour is what one connection of a kind does, from its dial to
// its end; it adds to t what happened.
type misbehaviour func(a *attackConn, seq int64, end time.Time, t *tally)

// runConns keeps conns connections of kind open until dur is over, each
// replaced by a new one once it ends, at most rate new ones a second, and
// prints what happened to them.
func runConns(to *net.UDPAddr, kind string, conns, rate int, dur time.Duration) error {
	m, ok := misbehaviours[kind]
	if !ok {
		return fmt.Errorf("-kind must be initial, garbage, streams, flowcontrol, qpack, noack or sparse; got %q", kind)
	}
	start := time.Now()
	end := start.Add(dur)
	p := &pacer{gap: time.Second / time.Duration(rate)}
	var t tally
	var seq atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for p.wait(end) {
				a, err := dialAttack(to)
				if err != nil {
					t.add("dial: "+err.Error(), 1)
					return
				}
				m(a, seq.Add(1), end, &t)
				a.close()
			}
		})
	}
	wg.Wait()
	fmt.Printf("%s: %d connections in %v, %d at a time:\n%s", kind, seq.Load(), time.Since(start).Round(time.Millisecond), conns, t.String())
	return nil
}
