package quic

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestRecvBufAnyOrder: pieces of a stream pushed in random orders, with
// overlaps and repeats, and read between pushes, read back as the stream,
// and the chunks past a hole always match the runs received.
func TestRecvBufAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	data := make([]byte, 20000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for round := range 200 {
		var r recvBuf
		var got []byte
		type piece struct{ off, end int }
		var pieces []piece
		for off := 0; off < len(data); {
			n := 1 + rng.IntN(1500)
			end := min(off+n, len(data))
			pieces = append(pieces, piece{off, end})
			if rng.IntN(4) == 0 { // a repeat, or one overlapping its neighbours
				lo := max(0, off-rng.IntN(700))
				pieces = append(pieces, piece{lo, min(end+rng.IntN(700), len(data))})
			}
			off = end
		}
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		buf := make([]byte, 1+rng.IntN(4000))
		for _, p := range pieces {
			if err := r.push(uint64(p.off), data[p.off:p.end]); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			checkChunks(t, &r)
			if rng.IntN(3) == 0 {
				n := r.read(buf)
				got = append(got, buf[:n]...)
			}
		}
		for r.readable() > 0 {
			n := r.read(buf)
			got = append(got, buf[:n]...)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("round %d: read %d bytes, not the stream of %d", round, len(got), len(data))
		}
		if len(r.later) != 0 || r.highest() != uint64(len(data)) {
			t.Fatalf("round %d: %d chunks left, highest %d", round, len(r.later), r.highest())
		}
	}
}

// checkChunks holds recvBuf's invariant: each run of bytes received past
// the contiguous ones is one chunk, in order.
func checkChunks(t *testing.T, r *recvBuf) {
	t.Helper()
	spans := r.have
	if len(r.buf) > 0 {
		if len(spans) == 0 || spans[0].lo != r.readOff || spans[0].hi != r.readOff+uint64(len(r.buf)) {
			t.Fatalf("contiguous bytes [%d,%d) but spans %v", r.readOff, r.readOff+uint64(len(r.buf)), spans)
		}
		spans = spans[1:]
	}
	if len(spans) != len(r.later) {
		t.Fatalf("%d runs past the hole, %d chunks", len(spans), len(r.later))
	}
	for i, s := range spans {
		c := r.later[i]
		if c.off != s.lo || c.off+uint64(len(c.data)) != s.hi {
			t.Fatalf("chunk %d at [%d,%d), run [%d,%d)", i, c.off, c.off+uint64(len(c.data)), s.lo, s.hi)
		}
	}
}

// TestRecvBufSparseCostsWhatArrived: one byte at the far end of a 4 MiB
// window, and a byte every 16 KiB before it, cost about what arrived, not
// the window; past maxRecvGaps holes the stream is refused.
func TestRecvBufSparseCostsWhatArrived(t *testing.T) {
	var r recvBuf
	if err := r.push(4<<20-1, []byte{1}); err != nil {
		t.Fatal(err)
	}
	for off := uint64(16 << 10); len(r.later) < maxRecvGaps; off += 16 << 10 {
		if err := r.push(off, []byte{2}); err != nil {
			t.Fatalf("hole %d: %v", len(r.later), err)
		}
	}
	held := cap(r.buf)
	for _, c := range r.later {
		held += cap(c.data)
	}
	if held > 8*maxRecvGaps {
		t.Fatalf("%d bytes held for %d bytes received", held, maxRecvGaps)
	}
	if r.highest() != 4<<20 {
		t.Fatalf("highest %d, want the window's end", r.highest())
	}
	err := r.push(8, []byte{3})
	var te *TransportError
	if !errors.As(err, &te) || te.Code != InternalError {
		t.Fatalf("hole %d: %v, want INTERNAL_ERROR", maxRecvGaps+1, err)
	}
	// Filling a hole joins runs rather than making one.
	if err := r.push(16<<10, make([]byte, 16<<10)); err != nil {
		t.Fatalf("joining two runs: %v", err)
	}
}
