package http2

import "testing"

func TestSendWindow(t *testing.T) {
	tests := []struct {
		name    string
		initial uint32
		consume int
		add     []uint32
		delta   int64
		wantOK  bool
		want    int64
	}{
		{"an update within the limit adds credit", 65535, 65535, []uint32{100}, 0, true, 100},
		{"an update past 2^31-1 is refused and changes nothing", MaxWindowSize, 0, []uint32{1}, 0, false, MaxWindowSize},
		{"a lowered initial size makes the window negative", 65535, 60000, nil, -65535 + 1000, true, 1000 - 60000},
		{"a raised initial size past 2^31-1 is refused", 65535, 0, nil, MaxWindowSize, false, 65535},
		{"two updates reaching exactly 2^31-1 are accepted", 0, 0, []uint32{1 << 30, 1<<30 - 1}, 0, true, MaxWindowSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewSendWindow(tt.initial)
			w.Consume(tt.consume)
			ok := true
			for _, a := range tt.add {
				ok = ok && w.Add(a)
			}
			if tt.delta != 0 {
				ok = ok && w.Adjust(tt.delta)
			}
			if ok != tt.wantOK || w.Available() != tt.want {
				t.Fatalf("ok=%v available=%d, want ok=%v available=%d", ok, w.Available(), tt.wantOK, tt.want)
			}
		})
	}
}

func TestRecvWindow(t *testing.T) {
	t.Run("data beyond the granted credit is a flow-control error", func(t *testing.T) {
		w := NewRecvWindow(100)
		if !w.Receive(100) {
			t.Fatal("100 bytes in a 100-byte window refused")
		}
		if w.Receive(1) {
			t.Fatal("a byte past the window accepted")
		}
	})
	t.Run("credit comes back in batches of half the window", func(t *testing.T) {
		w := NewRecvWindow(100)
		w.Receive(100)
		if got := w.Consume(49); got != 0 {
			t.Fatalf("Consume(49) = %d, want 0", got)
		}
		if got := w.Consume(1); got != 50 {
			t.Fatalf("Consume(1) = %d, want 50", got)
		}
		if w.Available() != 50 {
			t.Fatalf("available %d, want 50", w.Available())
		}
		if !w.Receive(50) || w.Receive(1) {
			t.Fatal("window after update does not hold exactly 50")
		}
	})
}
