package quic

import (
	"bytes"
	"testing"
)

func TestRecvBufReassembly(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	type piece struct{ off, end int }
	for _, tc := range []struct {
		name     string
		pieces   []piece
		readable int
	}{
		{"in order", []piece{{0, 5}, {5, 10}, {10, 20}}, 20},
		{"reversed", []piece{{15, 20}, {10, 15}, {5, 10}, {0, 5}}, 20},
		{"overlapping and duplicated", []piece{{3, 12}, {0, 4}, {3, 12}, {11, 20}, {0, 20}}, 20},
		{"a hole stops the reader", []piece{{0, 5}, {10, 20}}, 5},
		{"nothing from the start", []piece{{5, 20}}, 0},
		{"single bytes shuffled", []piece{{7, 8}, {0, 1}, {2, 3}, {1, 2}, {4, 7}, {3, 4}}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recvBuf
			for _, p := range tc.pieces {
				r.push(uint64(p.off), data[p.off:p.end])
			}
			if got := r.readable(); got != tc.readable {
				t.Fatalf("readable %d, want %d", got, tc.readable)
			}
			out := make([]byte, 3)
			var got []byte
			for r.readable() > 0 {
				n := r.read(out)
				got = append(got, out[:n]...)
			}
			if !bytes.Equal(got, data[:tc.readable]) {
				t.Fatalf("read %q", got)
			}
			// What was read is dropped when it arrives again.
			r.push(0, data[:tc.readable])
			if r.readable() != 0 {
				t.Fatal("bytes read came back")
			}
		})
	}
}

func TestSendBufRetransmission(t *testing.T) {
	var s sendBuf
	s.write([]byte("0123456789"))
	s.fin = true
	off, n, fin, _ := s.chunk(4, 100)
	s.onSent(off, n, fin) // 0-4
	off, n, fin, _ = s.chunk(4, 100)
	s.onSent(off, n, fin) // 4-8
	off, n, fin, _ = s.chunk(4, 100)
	if off != 8 || n != 2 || !fin {
		t.Fatalf("last chunk %d+%d fin %v", off, n, fin)
	}
	s.onSent(off, n, fin)
	if s.pending(100) {
		t.Fatal("pending after everything sent")
	}
	s.onAcked(4, 4, false)
	s.onLost(0, 4, false)
	s.onLost(8, 2, true)
	s.onLost(4, 4, false) // acknowledged already: not sent again
	for _, want := range []struct {
		off uint64
		n   int
		fin bool
	}{{0, 4, false}, {8, 2, true}} {
		off, n, fin, ok := s.chunk(100, 100)
		if !ok || off != want.off || n != want.n || fin != want.fin {
			t.Fatalf("chunk %d+%d fin %v ok %v, want %+v", off, n, fin, ok, want)
		}
		s.onSent(off, n, fin)
	}
	if _, _, _, ok := s.chunk(100, 100); ok {
		t.Fatal("more to send")
	}
	s.onAcked(0, 4, false)
	s.onAcked(8, 2, true)
	if !s.done() || s.buffered() != 0 {
		t.Fatalf("done %v, buffered %d", s.done(), s.buffered())
	}
}

func TestSendBufFlowLimit(t *testing.T) {
	var s sendBuf
	s.write(make([]byte, 100))
	off, n, _, ok := s.chunk(1000, 30)
	if !ok || off != 0 || n != 30 {
		t.Fatalf("chunk %d+%d", off, n)
	}
	s.onSent(off, n, false)
	if s.pending(30) {
		t.Fatal("pending at the limit")
	}
	if !s.pending(31) {
		t.Fatal("not pending past the limit")
	}
}

func TestSpanSet(t *testing.T) {
	var s spanSet
	s.add(10, 20)
	s.add(30, 40)
	s.add(20, 30)
	if len(s) != 1 || s[0] != (span{10, 40}) {
		t.Fatalf("merged %v", s)
	}
	s.remove(15, 25)
	if len(s) != 2 || s[0] != (span{10, 15}) || s[1] != (span{25, 40}) {
		t.Fatalf("split %v", s)
	}
	s.remove(0, 100)
	if len(s) != 0 {
		t.Fatalf("emptied %v", s)
	}
}

func TestConnFlowWindow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		receive  []uint64
		consume  uint64
		wantErr  bool
		wantMax  uint64
		wantOwed bool
	}{
		{"within the window", []uint64{400, 500}, 0, false, 1000, false},
		{"past the window", []uint64{600, 500}, 0, true, 1000, false},
		{"half read raises the window", []uint64{600}, 600, false, 1600, true},
		{"a little read does not", []uint64{600}, 100, false, 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f connFlow
			f.init(1000)
			var err error
			for _, n := range tc.receive {
				if err = f.onReceive(n); err != nil {
					break
				}
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v", err)
			}
			f.onConsumed(tc.consume)
			if f.recvMax != tc.wantMax || f.maxDataOwed != tc.wantOwed {
				t.Fatalf("MAX_DATA %d owed %v", f.recvMax, f.maxDataOwed)
			}
		})
	}
}
