//go:build linux

package server

import (
	"bytes"
	"testing"

	"github.com/gust-http/gust/internal/http3"
)

// A client that sends Expect: 100-continue waits for the 100 before the
// request's content (RFC 9110 section 10.1.1): the server sends it once
// the head is in, or refuses at once a declared length past MaxBodyBytes.
func TestHTTP3ExpectContinue(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline, MaxBodyBytes: 100})
	c := dialH3Raw(t, addr)
	head := func(length string) []byte {
		sec := http3.AppendSectionPrefix(nil)
		sec = http3.AppendField(sec, ":method", "POST")
		sec = http3.AppendField(sec, ":scheme", "https")
		sec = http3.AppendField(sec, ":authority", "localhost")
		sec = http3.AppendField(sec, ":path", "/")
		sec = http3.AppendField(sec, "expect", "100-continue")
		sec = http3.AppendField(sec, "content-length", length)
		return http3.AppendHeaders(nil, sec)
	}
	// readUntil reads stream id until it holds want or ends.
	readUntil := func(id uint64, want []byte) []byte {
		var got []byte
		buf := make([]byte, 4096)
		c.until("the server's answer", func() bool {
			for {
				n, fin, err := c.qc.Read(id, buf)
				got = append(got, buf[:n]...)
				if err != nil || fin || n == 0 {
					return err != nil || fin || len(got) > 0 && (want == nil || bytes.Contains(got, want))
				}
			}
		})
		return got
	}
	// status returns the :status of the first HEADERS frame in b.
	status := func(b []byte) string {
		r := http3.FrameReader{Kind: http3.KindRequest, Client: true}
		f, _, ok, err := r.Next(b)
		if !ok || err != nil || f.Type != http3.FrameHeaders {
			return ""
		}
		var d http3.Decoder
		fields, err := d.Decode(nil, f.Payload)
		if err != nil || len(fields) == 0 {
			return ""
		}
		return string(fields[0].Value)
	}
	t.Run("the head is answered with 100 before the content is sent", func(t *testing.T) {
		id, _ := c.qc.OpenStream(false)
		c.qc.Write(id, head("5"))
		if got := readUntil(id, nil); status(got) != "100" {
			t.Fatalf("no 100 (Continue) before the content: %q", got)
		}
		c.qc.Write(id, http3.AppendData(nil, []byte("hello")))
		c.qc.CloseWrite(id)
		if got := readUntil(id, []byte("hello")); !bytes.Contains(got, []byte("hello")) {
			t.Errorf("the final response: %q", got)
		}
	})
	t.Run("a declared length past MaxBodyBytes gets 413 at once", func(t *testing.T) {
		id, _ := c.qc.OpenStream(false)
		c.qc.Write(id, head("1000"))
		if got := readUntil(id, nil); status(got) != "413" {
			t.Fatalf("no 413 for content it would refuse: %q", got)
		}
	})
}
