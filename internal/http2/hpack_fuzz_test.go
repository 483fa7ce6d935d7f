package http2

import (
	"errors"
	"testing"
)

// FuzzHeaderDecoder feeds arbitrary blocks in arbitrary fragments through
// the limited decoder: it must never panic, never emit more than
// MaxHeaderListSize, and only accept blocks within MaxBlockBytes and
// MaxContinuations.
func FuzzHeaderDecoder(f *testing.F) {
	f.Add([]byte{0x82, 0x84, 0x86}, uint8(1))
	f.Add([]byte{0x40, 0x01, 'a', 0x7f, 0x10, 'x'}, uint8(2))
	f.Add([]byte{0x3f, 0xe1, 0x1f}, uint8(0))
	f.Add([]byte{0xbe, 0xbe, 0xbe, 0xbe}, uint8(3))
	f.Fuzz(func(t *testing.T, block []byte, split uint8) {
		limits := HeaderLimits{MaxHeaderListSize: 256, MaxBlockBytes: 512, MaxContinuations: 4}
		emitted := uint32(0)
		d := NewHeaderDecoder(limits, func(name, value string) { emitted += uint32(len(name)+len(value)) + 32 })
		for round := 0; round < 2; round++ {
			emitted = 0
			d.Begin()
			var err error
			frames := 0
			step := int(split) + 1
			for b := block; len(b) > 0 && err == nil; frames++ {
				k := min(step, len(b))
				err = d.WriteFragment(b[:k], frames > 0)
				b = b[k:]
			}
			if err == nil {
				err = d.End()
			}
			if emitted > limits.MaxHeaderListSize {
				t.Fatalf("%d bytes emitted past the limit %d", emitted, limits.MaxHeaderListSize)
			}
			if err == nil && (len(block) > limits.MaxBlockBytes || frames-1 > limits.MaxContinuations) {
				t.Fatalf("block of %d bytes in %d frames accepted", len(block), frames)
			}
			var ce ConnError
			if err != nil && !errors.As(err, &ce) && !errors.Is(err, ErrHeaderListTooLarge) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			if errors.As(err, &ce) {
				return // the connection would be closed; the decoder is spent
			}
		}
	})
}
