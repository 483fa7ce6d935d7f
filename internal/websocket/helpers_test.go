package websocket

import (
	"bytes"
	stdflate "compress/flate"
	"testing"
)

var testKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// cf builds a frame as a client sends it (masked with testKey); sf as a
// server does (unmasked).
func cf(op Opcode, fin bool, payload string) []byte {
	return AppendFrame(nil, op, fin, false, []byte(payload), &testKey)
}

func sf(op Opcode, fin bool, payload string) []byte {
	return AppendFrame(nil, op, fin, false, []byte(payload), nil)
}

// rawFrame builds a client frame with any first byte (FIN, RSV, opcode).
func rawFrame(b0 byte, payload string) []byte {
	f := AppendFrame(nil, OpBinary, false, false, []byte(payload), &testKey)
	f[0] = b0
	return f
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func closePayload(code int, reason string) string {
	return string([]byte{byte(code >> 8), byte(code)}) + reason
}

// stdDeflate compresses p with the standard library (an independent
// implementation) and strips the sync tail, as RFC 7692 section 7.2.1 says.
func stdDeflate(t testing.TB, p []byte) []byte {
	var b bytes.Buffer
	w, err := stdflate.NewWriter(&b, stdflate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(p)
	w.Flush()
	out := b.Bytes()
	if !bytes.HasSuffix(out, syncTail[:]) {
		t.Fatalf("no sync tail")
	}
	return out[:len(out)-4]
}

// zf builds a compressed client frame (RSV1 on the first).
func zf(op Opcode, fin, rsv1 bool, compressed []byte) []byte {
	return AppendFrame(nil, op, fin, rsv1, compressed, &testKey)
}

// gotEvent is an Event with its payload copied.
type gotEvent struct {
	Kind    EventKind
	Op      Opcode
	Payload string
	Code    int
}

type gotFrame struct {
	Op      Opcode
	Payload string
}

type feedResult struct {
	events []gotEvent
	out    []gotFrame
	code   int // the CloseError's, 0 when none
	n      int
}

// feedAll feeds input in chunks of chunk bytes (0: all at once) the way a
// caller does: keeping the unconsumed tail and appending more to it.
func feedAll(t testing.TB, c *Conn, input []byte, chunk int) feedResult {
	t.Helper()
	var r feedResult
	var pending, out []byte
	input = bytes.Clone(input)
	if chunk <= 0 {
		chunk = len(input) + 1
	}
	for len(input) > 0 || len(pending) > 0 {
		k := min(chunk, len(input))
		pending = append(pending, input[:k]...)
		input = input[k:]
		var n int
		var err error
		out, n, err = c.Feed(out, pending)
		r.n += n
		for _, e := range c.Events() {
			r.events = append(r.events, gotEvent{e.Kind, e.Op, string(e.Payload), e.Code})
		}
		if err != nil {
			ce, ok := err.(*CloseError)
			if !ok {
				t.Fatalf("error %T, want *CloseError", err)
			}
			r.code = ce.Code
			break
		}
		pending = append(pending[:0], pending[n:]...)
		if k == 0 {
			break // no more input and the rest is a partial frame
		}
	}
	r.out = parseOut(t, out, c.client)
	return r
}

// parseOut parses the frames a Conn wrote, checking their masking.
func parseOut(t testing.TB, out []byte, client bool) []gotFrame {
	t.Helper()
	var fs []gotFrame
	for len(out) > 0 {
		h, n, err := ParseFrameHeader(out)
		if err != nil || n == 0 || uint64(len(out)-n) < h.Length {
			t.Fatalf("bad output frame: %v %d % x", err, n, out)
		}
		if h.Masked != client {
			t.Fatalf("output frame masked=%v from client=%v", h.Masked, client)
		}
		p := bytes.Clone(out[n : n+int(h.Length)])
		if h.Masked {
			Mask(p, h.Mask, 0)
		}
		fs = append(fs, gotFrame{h.Op, string(p)})
		out = out[n+int(h.Length):]
	}
	return fs
}
