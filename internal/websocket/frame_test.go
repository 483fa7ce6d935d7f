package websocket

import (
	"bytes"
	"testing"
)

func TestParseFrameHeader(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want FrameHeader
		n    int
		err  bool
	}{
		{"needs two bytes", []byte{0x81}, FrameHeader{}, 0, false},
		{"a short text frame", []byte{0x81, 0x05}, FrameHeader{Fin: true, Op: OpText, Length: 5}, 2, false},
		{"a masked frame", []byte{0x82, 0x80 | 3, 1, 2, 3, 4}, FrameHeader{Fin: true, Op: OpBinary, Masked: true, Mask: [4]byte{1, 2, 3, 4}, Length: 3}, 6, false},
		{"a masked frame missing its key", []byte{0x82, 0x83, 1, 2}, FrameHeader{}, 0, false},
		{"16-bit length", []byte{0x02, 126, 0x01, 0x00}, FrameHeader{Op: OpBinary, Length: 256}, 4, false},
		{"16-bit length cut off", []byte{0x02, 126, 0x01}, FrameHeader{}, 0, false},
		{"64-bit length", []byte{0x02, 127, 0, 0, 0, 1, 0, 0, 0, 0}, FrameHeader{Op: OpBinary, Length: 1 << 32}, 10, false},
		{"64-bit length cut off", []byte{0x02, 127, 0, 0, 0, 1, 0, 0, 0}, FrameHeader{}, 0, false},
		{"RSV bits are reported, not judged", []byte{0xf1, 0}, FrameHeader{Fin: true, Rsv1: true, Rsv2: true, Rsv3: true, Op: OpText}, 2, false},
		{"64-bit length with the top bit", []byte{0x02, 127, 0x80, 0, 0, 0, 0, 0, 0, 0}, FrameHeader{}, 0, true},
		{"reserved opcode 3", []byte{0x83, 0}, FrameHeader{}, 0, true},
		{"reserved opcode 0xb", []byte{0x8b, 0}, FrameHeader{}, 0, true},
		{"fragmented ping", []byte{0x09, 0}, FrameHeader{}, 0, true},
		{"126-byte close", []byte{0x88, 126, 0, 126}, FrameHeader{}, 0, true},
		{"125-byte pong", []byte{0x8a, 125}, FrameHeader{Fin: true, Op: OpPong, Length: 125}, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, n, err := ParseFrameHeader(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				if ce, ok := err.(*CloseError); !ok || ce.Code != CloseProtocolError {
					t.Fatalf("err = %#v, want a 1002 CloseError", err)
				}
				return
			}
			if n != tc.n || (n > 0 && h != tc.want) {
				t.Fatalf("got %+v n=%d, want %+v n=%d", h, n, tc.want, tc.n)
			}
		})
	}
}

func TestAppendFrameLengths(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 65535, 65536, 70000} {
		for _, masked := range []bool{false, true} {
			p := bytes.Repeat([]byte{0xa5}, n)
			var mask *[4]byte
			if masked {
				mask = &testKey
			}
			f := AppendFrame([]byte("prefix"), OpBinary, true, false, p, mask)[6:]
			h, hn, err := ParseFrameHeader(f)
			if err != nil || hn != headerLen(n, masked) || h.Length != uint64(n) || h.Masked != masked || !h.Fin || h.Op != OpBinary {
				t.Fatalf("n=%d masked=%v: %+v hn=%d err=%v", n, masked, h, hn, err)
			}
			got := f[hn:]
			if masked {
				Mask(got, h.Mask, 0)
			}
			if !bytes.Equal(got, p) {
				t.Fatalf("n=%d masked=%v: payload differs", n, masked)
			}
			if n > 0 && p[0] != 0xa5 {
				t.Fatal("AppendFrame modified the payload")
			}
		}
	}
}

func TestOpcodeAndEventNames(t *testing.T) {
	if OpText.String() != "text" || Opcode(3).String() != "reserved" || EventClose.String() != "close" || EventKind(9).String() != "unknown" {
		t.Error("names")
	}
	if !OpPing.IsControl() || OpBinary.IsControl() || Opcode(0xb).Known() {
		t.Error("classes")
	}
}

func TestCloseCodes(t *testing.T) {
	valid := map[int]bool{}
	for _, c := range []int{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999} {
		valid[c] = true
	}
	for _, c := range []int{-1, 0, 999, 1000, 1003, 1004, 1005, 1006, 1007, 1014, 1015, 1016, 2999, 3000, 4999, 5000, 65535} {
		if got := ValidCloseCode(c); got != valid[c] {
			t.Errorf("ValidCloseCode(%d) = %v", c, got)
		}
	}
	if s := (&CloseError{Code: 1009, Reason: "too big"}).Error(); s != "websocket: close 1009: too big" {
		t.Error(s)
	}
}
