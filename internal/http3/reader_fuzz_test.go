package http3

import (
	"bytes"
	"testing"
)

// FuzzFrameReader feeds arbitrary bytes to a FrameReader whole and in
// pieces: it must never panic, and the frames, and the error code if any,
// must not depend on how the bytes were split.
func FuzzFrameReader(f *testing.F) {
	s := AppendSettings(nil, DefaultSettings())
	f.Add(uint8(0), AppendData(AppendHeaders(nil, []byte{0, 0, 0xd1}), []byte("body")))
	f.Add(uint8(1), append(s, AppendGoAway(nil, 8)...))
	f.Add(uint8(2), AppendHeaders(nil, []byte("x")))
	f.Add(uint8(4), AppendPushPromise(nil, 3, []byte{0, 0}))
	f.Add(uint8(0), append(AppendFrameHeader(nil, 0x21, 3), 1, 2, 3))
	f.Fuzz(func(t *testing.T, mode uint8, in []byte) {
		mk := func() *FrameReader {
			return &FrameReader{Kind: StreamKind(mode % 3), Client: mode&4 != 0, MaxFrameSize: 256}
		}
		whole, errWhole := readAll(mk(), in, len(in)+1)
		for _, step := range []int{1, 3} {
			part, errPart := readAll(mk(), in, step)
			if CodeOf(errWhole) != CodeOf(errPart) {
				t.Fatalf("step %d: error %v, whole: %v", step, errPart, errWhole)
			}
			if len(part) != len(whole) {
				t.Fatalf("step %d: %d frames, whole: %d", step, len(part), len(whole))
			}
			for i := range part {
				a, b := part[i], whole[i]
				if a.Type != b.Type || a.ID != b.ID || a.Length != b.Length || !bytes.Equal(a.Payload, b.Payload) {
					t.Fatalf("step %d frame %d: %+v, whole: %+v", step, i, a, b)
				}
			}
		}
	})
}
