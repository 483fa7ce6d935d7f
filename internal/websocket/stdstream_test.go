package websocket

import (
	"bytes"
	stdflate "compress/flate"
	"testing"
)

// stdStream is a peer's compressor with context takeover, built on the
// standard library: one flate stream across messages, sync-flushed after
// each.
type stdStream struct {
	buf bytes.Buffer
	w   *stdflate.Writer
}

func newStdStream(t testing.TB, _ *[]byte) *stdStream {
	s := new(stdStream)
	var err error
	if s.w, err = stdflate.NewWriter(&s.buf, stdflate.BestCompression); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *stdStream) message(t testing.TB, p []byte) []byte {
	s.buf.Reset()
	s.w.Write(p)
	s.w.Flush()
	out := bytes.Clone(s.buf.Bytes())
	if !bytes.HasSuffix(out, syncTail[:]) {
		t.Fatal("no sync tail")
	}
	return out[:len(out)-4]
}
