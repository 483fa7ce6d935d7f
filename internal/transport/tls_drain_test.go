//go:build linux

package transport

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTLSShortReadWithNothingBufferedMeansDrained reads a response that is
// all in the socket before the first Read, by the rule of an edge-triggered
// loop (load/wire.go): stop at a short Read with nothing Buffered, or at
// ErrWouldBlock. No event would announce what such a stop leaves in the
// socket, so every byte must have been read by then, with crypto/tls's
// records (TLS 1.2) as with gust's (TLS 1.3).
func TestTLSShortReadWithNothingBufferedMeansDrained(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			s, c := tlsPair(t, newListener(t), ver.v)
			resp := bytes.Repeat([]byte("x"), 60<<10)
			writeAll(t, s, resp)
			// All of it in the client's socket: acknowledged, none left in
			// the server's.
			waitUntil(t, 5*time.Second, "the response acknowledged", func() bool { return queued(t, s.FD(), unix.SIOCOUTQ) == 0 })
			buf := make([]byte, 64<<10)
			got := 0
			for {
				n, err := c.Read(buf)
				got += n
				if errors.Is(err, ErrWouldBlock) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if n < len(buf) && c.Buffered() == 0 {
					break
				}
			}
			if got != len(resp) {
				t.Fatalf("the loop's rule stopped after %d of %d bytes, the rest left in the socket", got, len(resp))
			}
		})
	}
}
