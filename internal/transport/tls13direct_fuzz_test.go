package transport

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"testing"
)

// fuzzConn is an inner Conn that reads its input in pieces of the sizes
// the fuzzer chose and takes every write.
type fuzzConn struct {
	in     []byte
	pieces []byte
	out    bytes.Buffer
}

func (f *fuzzConn) Read(p []byte) (int, error) {
	if len(f.in) == 0 {
		return 0, io.EOF
	}
	n := len(f.in)
	if len(f.pieces) > 0 {
		n = max(1, int(f.pieces[0]))
		f.pieces = f.pieces[1:]
	}
	n = min(n, len(p), len(f.in))
	copy(p, f.in[:n])
	f.in = f.in[n:]
	return n, nil
}

func (f *fuzzConn) Write(p []byte) (int, error) { return f.out.Write(p) }
func (f *fuzzConn) Buffered() int               { return 0 }
func (f *fuzzConn) FD() int                     { return -1 }

// directForFuzz returns a TLS already handed over, with fixed secrets, and
// the peer's direction for sealing its input.
func directForFuzz(t testing.TB, inner Conn) (*TLS, *direction) {
	suite, _ := suiteFor(tls.TLS_AES_128_GCM_SHA256)
	secret := bytes.Repeat([]byte{7}, 32)
	in, err := newDirection(suite, secret)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := newDirection(suite, bytes.Repeat([]byte{9}, 32))
	peer, _ := newDirection(suite, secret)
	c := &TLS{d: &direct13{in: *in, out: *out}}
	c.rc.inner = inner
	c.state.Store(stateReady)
	return c, peer
}

// FuzzDirectRecords feeds the direct record reader any bytes, cut in any
// pieces, after records sealed with the right key (so that the fuzzer
// starts from a stream that decrypts): it must never panic, never return
// more bytes than the records held, and stop at the first error.
func FuzzDirectRecords(f *testing.F) {
	_, peer := directForFuzz(f, &fuzzConn{})
	var seed []byte
	seed, _ = peer.seal(seed, typeApplicationData, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	seed, _ = peer.seal(seed, typeHandshake, []byte{msgKeyUpdate, 0, 0, 1, 1})
	f.Add(seed, []byte{3, 200, 1})
	_, peer = directForFuzz(f, &fuzzConn{})
	var cut []byte // a KeyUpdate cut across two records
	cut, _ = peer.seal(cut, typeHandshake, []byte{msgKeyUpdate, 0})
	cut, _ = peer.seal(cut, typeHandshake, []byte{0, 1, 0})
	f.Add(cut, []byte{7})
	f.Add([]byte{0x17, 3, 3, 0x41, 0}, []byte{})
	f.Add([]byte{0x14, 3, 3, 0, 1, 1}, []byte{1})
	f.Fuzz(func(t *testing.T, input, pieces []byte) {
		fc := &fuzzConn{in: input, pieces: pieces}
		c, _ := directForFuzz(t, fc)
		buf := make([]byte, 100)
		total := 0
		for i := 0; i < 10000; i++ {
			n, err := c.Read(buf[:1+i%len(buf)])
			total += n
			if total > len(input) {
				t.Fatalf("read %d bytes from %d of input", total, len(input))
			}
			if err != nil {
				if errors.Is(err, ErrWouldBlock) {
					t.Fatal("a reader at EOF said would-block")
				}
				if _, err2 := c.Read(buf); err2 == nil {
					t.Fatalf("Read succeeded after %v", err)
				}
				return
			}
		}
		t.Fatal("Read never ended")
	})
}
