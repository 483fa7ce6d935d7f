package load

import (
	"os"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
)

// quicLink is an HTTP/3 connection's transport.Conn: a connected UDP
// socket and the QUIC engine on it, so that the loop's round trip
// (roundtrip.go) runs unchanged over datagrams. Read hands the session
// one datagram at a time, from batches recvmmsg took (with GRO, a slot
// may hold several, split here); Write takes no bytes of its own (the
// session writes requests into QUIC streams) and sends whatever the
// engine has: with GSO, runs of equal datagrams as one sendmsg each,
// otherwise a batch through sendmmsg. The loop's batches are shared by
// its connections: a read batch belongs to the link that filled it until
// that link has handed out every datagram.
type quicLink struct {
	sock datagram.Socket
	qc   *quic.Conn // nil until the session starts
	io   *quicBatches

	rd, rn  int   // slots of the read batch handed out, and read
	off     int   // in slot rd, where the next coalesced datagram starts
	mark    uint8 // the ECN codepoint of the datagram Read handed out last
	drained bool  // the last batch was not full: the socket was empty then
	owed    bool  // the engine may have datagrams to send: Write(nil) owes a flush
	written int   // bytes sent since the loop last took the count (takeWritten)
}

// quicBatches are a loop's datagram batches, made once: one to read into,
// one to write from, and a GSO send.
type quicBatches struct {
	read, write *datagram.Batch
	gso         *datagram.Segments // nil without GSO
	gro         bool               // sockets are asked for coalesced datagrams
	ecn         bool               // datagrams carry ECN codepoints both ways
	owner       *quicLink          // the link whose datagrams the read batch holds
	// Datagrams moved, the system calls that moved them, the GSO sends of
	// several and the read slots GRO coalesced, for the report.
	sent, recv           int64
	sendCalls, recvCalls int64
	gsoSends, groSlots   int64
}

// quicBatch is how many slots one system call reads or writes.
const quicBatch = 32

// newQUICBatches makes a loop's batches, with GSO, GRO and ECN as f
// offers them (GUST_QUIC_OFFLOAD=off leaves GSO and GRO out, for A/B
// runs; quicECN says whether ECN is used).
func newQUICBatches(f datagram.Features) *quicBatches {
	ecn := quicECN(f)
	if os.Getenv("GUST_QUIC_OFFLOAD") == "off" {
		f = datagram.Features{}
	}
	q := &quicBatches{write: datagram.NewBatch(quicBatch, 2048), gro: f.GRO, ecn: ecn}
	if f.GRO {
		q.read = datagram.NewBatch(quicBatch, 65535).WithSegments()
	} else {
		q.read = datagram.NewBatch(quicBatch, 2048)
	}
	if f.GSO {
		q.gso = datagram.NewSegments(2048)
	}
	return q
}

// reset puts the link on socket fd, with no engine yet.
func (q *quicLink) reset(fd int) {
	q.sock = datagram.SocketOf(fd)
	if q.qc != nil {
		q.qc.Abandon() // its TLS goroutine, if the handshake left one, ends with it
	}
	q.qc = nil
	q.rd, q.rn, q.off = 0, 0, 0
	q.owed, q.drained = false, false
	if q.io.owner == q {
		q.io.owner = nil
	}
}

// Read copies the next datagram into p: from the read batch while this
// link's datagrams are in it, else from a new recvmmsg.
func (q *quicLink) Read(p []byte) (int, error) {
	b := q.io
	if b.owner != q || q.rd >= q.rn {
		if q.drained {
			// As a short read of a stream socket: a datagram that arrives
			// after it raises the next edge-triggered event.
			q.drained = false
			return 0, transport.ErrWouldBlock
		}
		n, err := q.sock.ReadBatch(b.read)
		b.recvCalls++
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, transport.ErrWouldBlock
		}
		b.owner, q.rd, q.rn, q.off = q, 0, n, 0
		q.drained = n < b.read.Len()
	}
	d, seg := b.read.Datagram(q.rd), b.read.Segment(q.rd)
	q.mark = b.read.ECN(q.rd) // a GRO slot's datagrams came with one codepoint
	if seg > 0 && seg < len(d) {
		if q.off == 0 {
			b.groSlots++
		}
		d = d[q.off:min(q.off+seg, len(d))]
		q.off += len(d)
		if q.off < len(b.read.Datagram(q.rd)) {
			b.recv++
			return copy(p, d), nil
		}
	}
	q.rd, q.off = q.rd+1, 0
	if q.rd == q.rn {
		b.owner = nil
	}
	b.recv++
	return copy(p, d), nil
}

// Write sends what the engine has to send; p must be empty (requests go
// into streams, not here). The engine decides what goes: ACKs due,
// stream data its windows allow, retransmissions, within the congestion
// window and the pacer. A socket buffer that fills drops the rest, as a
// router would: QUIC's loss recovery resends what mattered.
func (q *quicLink) Write(p []byte) (int, error) {
	q.owed = false
	if q.qc == nil {
		return 0, nil
	}
	if q.io.gso != nil {
		return 0, q.writeSegments()
	}
	b := q.io.write
	now := time.Now()
	for {
		n := 0
		for n < b.Len() {
			d, ok := q.qc.AppendDatagram(b.Buffer(n)[:0], now)
			if !ok {
				break
			}
			b.SetConnected(n, len(d))
			if q.io.ecn {
				b.SetECN(n, uint8(q.qc.DatagramECN()))
			}
			q.written += len(d)
			n++
		}
		if n == 0 {
			return 0, nil
		}
		_, err := q.sock.WriteBatch(b, n)
		q.io.sendCalls++
		if err != nil {
			return 0, err
		}
		q.io.sent += int64(n)
		if n < b.Len() {
			return 0, nil
		}
	}
}

// writeSegments sends the engine's datagrams with GSO: each run of
// datagrams of one size (the last of a run may be shorter) in one
// sendmsg.
func (q *quicLink) writeSegments() error {
	g, scratch := q.io.gso, q.io.write.Buffer(0)
	g.Reset()
	now := time.Now()
	for {
		d, ok := q.qc.AppendDatagram(scratch[:0], now)
		if !ok {
			break
		}
		mark := uint8(0)
		if q.io.ecn {
			mark = uint8(q.qc.DatagramECN())
		}
		if !g.Fits(len(d)) || g.Len() > 0 && g.ECN() != mark {
			if err := q.sendSegments(); err != nil {
				return err
			}
		}
		if g.Len() == 0 {
			g.SetECN(mark)
		}
		g.Append(d)
		q.written += len(d)
	}
	return q.sendSegments()
}

// sendSegments sends and empties the GSO send.
func (q *quicLink) sendSegments() error {
	g := q.io.gso
	if g.Len() == 0 {
		return nil
	}
	_, err := q.sock.WriteSegments(g)
	q.io.sendCalls++
	q.io.sent += int64(g.Len())
	if g.Len() > 1 {
		q.io.gsoSends++
	}
	g.Reset()
	return err
}

// takeWritten returns the bytes sent since its last call.
func (q *quicLink) takeWritten() int {
	n := q.written
	q.written = 0
	return n
}

// Buffered reports the read slots not yet handed out.
func (q *quicLink) Buffered() int {
	if q.io.owner != q {
		return 0
	}
	return q.rn - q.rd
}

// FD is the UDP socket.
func (q *quicLink) FD() int { return q.sock.FD() }

// Pending reports that the engine may have datagrams to send.
func (q *quicLink) Pending() int {
	if q.owed {
		return 1
	}
	return 0
}
