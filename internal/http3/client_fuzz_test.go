package http3

import (
	"errors"
	"testing"
)

// FuzzClientStreams feeds a response stream and a unidirectional stream
// arbitrary bytes in two pieces: nothing panics, and every error is a
// ConnError or a StreamError.
func FuzzClientStreams(f *testing.F) {
	resp := AppendHeaders(nil, section(":status", "200", "content-length", "2"))
	f.Add(append(resp, AppendData(nil, []byte("ok"))...), 3, false)
	f.Add(append(AppendStreamType(nil, StreamControl), AppendSettings(nil, DefaultSettings())...), 1, true)
	f.Add([]byte{0x02, 0x20, 0x20, 0x3f}, 2, true)
	f.Fuzz(func(t *testing.T, data []byte, split int, uni bool) {
		split = min(max(split, 0), len(data))
		check := func(err error) bool {
			var ce ConnError
			var se StreamError
			if err != nil && !errors.As(err, &ce) && !errors.As(err, &se) {
				t.Fatalf("error of an unexpected kind: %v", err)
			}
			return err == nil
		}
		var c Client
		if uni {
			_, err := c.ReceiveUni(3, data[:split], false)
			if check(err) {
				_, err = c.ReceiveUni(3, data[split:], true)
				check(err)
			}
			return
		}
		var s RequestStream
		if err := c.OpenRequest(&s, 0, false); err != nil {
			t.Fatal(err)
		}
		var h discard
		if check(s.Receive(data[:split], false, &h)) {
			check(s.Receive(data[split:], true, &h))
		}
	})
}
