package load

import "testing"

func TestGRPCFramesCountMessagesSplitAnywhere(t *testing.T) {
	msg := func(flag byte, body string) string {
		n := len(body)
		return string([]byte{flag, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) + body
	}
	three := msg(0, "hello") + msg(0, "") + msg(1, "zz")
	for _, tc := range []struct {
		name  string
		body  string
		limit uint32
		msgs  int64
		err   grpcFrameErr
	}{
		{"an empty body has no message", "", 10, 0, grpcFrameOK},
		{"one message", msg(0, "abc"), 10, 1, grpcFrameOK},
		{"an empty message counts", msg(0, ""), 10, 1, grpcFrameOK},
		{"three messages, one compressed", three, 10, 3, grpcFrameOK},
		{"a message at the limit", msg(0, "0123456789"), 10, 1, grpcFrameOK},
		{"a message over the limit", msg(0, "0123456789x"), 10, 0, grpcFrameTooLarge},
		{"a flag that is neither 0 nor 1", msg(2, "abc"), 10, 0, grpcFrameBadFlag},
		{"a body cut inside a prefix", msg(0, "abc") + "\x00\x00", 10, 1, grpcFrameCut},
		{"a body cut inside a message", msg(0, "abc")[:6], 10, 0, grpcFrameCut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every split of the body into two pieces, and byte by byte.
			for cut := 0; cut <= len(tc.body); cut++ {
				var f grpcFrames
				f.feed([]byte(tc.body[:cut]), tc.limit)
				f.feed([]byte(tc.body[cut:]), tc.limit)
				if err := f.end(); f.msgs != tc.msgs || err != tc.err {
					t.Fatalf("split at %d: %d messages, error %d; want %d, %d", cut, f.msgs, err, tc.msgs, tc.err)
				}
			}
			var f grpcFrames
			for i := range len(tc.body) {
				f.feed([]byte{tc.body[i]}, tc.limit)
			}
			if err := f.end(); f.msgs != tc.msgs || err != tc.err {
				t.Fatalf("byte by byte: %d messages, error %d; want %d, %d", f.msgs, err, tc.msgs, tc.err)
			}
		})
	}
}

// FuzzGRPCFrames feeds any body, split at any point: the reader never
// panics, counts the same messages however the body is split, and counts
// no more messages than the body has room for prefixes.
func FuzzGRPCFrames(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x03abc\x01\x00\x00\x00\x00"), uint16(3), uint32(10))
	f.Add([]byte("\x00\xff\xff\xff\xff"), uint16(2), uint32(1<<22))
	f.Add([]byte("\x07\x00\x00\x00\x00"), uint16(0), uint32(10))
	f.Fuzz(func(t *testing.T, body []byte, cut uint16, limit uint32) {
		c := int(cut) % (len(body) + 1)
		var whole, split grpcFrames
		whole.feed(body, limit)
		split.feed(body[:c], limit)
		split.feed(body[c:], limit)
		if whole.msgs != split.msgs || whole.end() != split.end() {
			t.Fatalf("whole: %d messages, error %d; split at %d: %d, %d", whole.msgs, whole.err, c, split.msgs, split.err)
		}
		if whole.msgs > int64(len(body)/5) {
			t.Fatalf("%d messages in %d bytes", whole.msgs, len(body))
		}
	})
}
