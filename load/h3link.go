package load

import (
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
)

// quicLink is an HTTP/3 connection's transport.Conn: a connected UDP
// socket and the QUIC engine on it, so that the loop's round trip
// (roundtrip.go) runs unchanged over datagrams. Read hands the session
// one datagram at a time, from batches recvmmsg took; Write takes no
// bytes of its own (the session writes requests into QUIC streams) and
// sends whatever the engine has, in batches through sendmmsg. The loop's
// two batches are shared by its connections: a read batch belongs to the
// link that filled it until that link has handed out every datagram.
type quicLink struct {
	sock datagram.Socket
	qc   *quic.Conn // nil until the session starts
	io   *quicBatches

	rd, rn  int  // datagrams of the read batch handed out, and read
	drained bool // the last batch was not full: the socket was empty then
	owed    bool // the engine may have datagrams to send: Write(nil) owes a flush
	written int  // bytes sent since the loop last took the count (takeWritten)
}

// quicBatches are a loop's datagram batches, one to read into, one to
// write from, made once.
type quicBatches struct {
	read, write *datagram.Batch
	owner       *quicLink // the link whose datagrams the read batch holds
	// Datagrams moved, and the system calls that moved them, for the
	// report.
	sent, recv           int64
	sendCalls, recvCalls int64
}

// quicBatch is how many datagrams one system call reads or writes.
const quicBatch = 32

func newQUICBatches() *quicBatches {
	return &quicBatches{read: datagram.NewBatch(quicBatch, 2048), write: datagram.NewBatch(quicBatch, 2048)}
}

// reset puts the link on socket fd, with no engine yet.
func (q *quicLink) reset(fd int) {
	q.sock = datagram.SocketOf(fd)
	q.qc = nil
	q.rd, q.rn = 0, 0
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
		b.owner, q.rd, q.rn = q, 0, n
		b.recv += int64(n)
		q.drained = n < b.read.Len()
	}
	d := b.read.Datagram(q.rd)
	q.rd++
	if q.rd == q.rn {
		b.owner = nil
	}
	return copy(p, d), nil
}

// Write sends what the engine has to send; p must be empty (requests go
// into streams, not here). The engine decides what goes: ACKs due,
// stream data its windows allow, retransmissions, within the congestion
// window and the pacer. A socket buffer that fills drops the rest of the
// batch, as a router would: QUIC's loss recovery resends what mattered.
func (q *quicLink) Write(p []byte) (int, error) {
	q.owed = false
	if q.qc == nil {
		return 0, nil
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

// takeWritten returns the bytes sent since its last call.
func (q *quicLink) takeWritten() int {
	n := q.written
	q.written = 0
	return n
}

// Buffered reports the datagrams read and not yet handed out.
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
