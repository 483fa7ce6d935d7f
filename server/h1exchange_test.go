package server

import (
	"strings"
	"testing"
)

// TestChunkedBodyResumesAcrossAnySplit feeds a chunked request (and a
// pipelined one after it) to nextRequest one more byte at a time, as bytes
// arrive on a connection: the body decoded in place must come out whole,
// and the request must end exactly where the next one starts.
func TestChunkedBodyResumesAcrossAnySplit(t *testing.T) {
	const first = "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;ext=1\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\nTrailer-A: 1\r\n\r\n"
	const next = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
	s := &Server{}
	s.cfg = s.Config.withDefaults()
	for _, step := range []int{1, 2, 3, 7, 16, len(first)} {
		src := first + next
		var in []byte // what a connection holds: received, minus what was trimmed
		var rd reading
		ctx := &Ctx{srv: s}
		got := false
		for sent := 0; sent < len(src) && !got; {
			k := min(step, len(src)-sent)
			in = append(in, src[sent:sent+k]...)
			sent += k
			outcome, total, status := s.nextRequest(in, ctx, &rd)
			switch outcome {
			case badRequest:
				t.Fatalf("step %d: %d bytes refused with %d", step, sent, status)
			case needBody, needContinue:
				in = rd.chunk.trim(in)
				continue
			case needMore:
				continue
			}
			if body := string(ctx.Body()); body != "hello, world" {
				t.Errorf("step %d: body %q", step, body)
			}
			// What the request spans, in the trimmed input, ends where the
			// next request starts.
			if rest := string(in[total:]); !strings.HasPrefix(next, rest) {
				t.Errorf("step %d: after the request comes %q, not the start of the next one", step, rest)
			}
			// A worker parses the same bytes again after its loop did.
			if o, again, _ := s.nextRequest(in, ctx, &rd); o != gotRequest || again != total || string(ctx.Body()) != "hello, world" {
				t.Errorf("step %d: parsing again gave %v, %d, %q", step, o, again, ctx.Body())
			}
			rd.done()
			rest := append(in[total:len(in):len(in)], src[sent:]...)
			if o, n, _ := s.nextRequest(rest, ctx, &rd); o != gotRequest || n != len(next) || string(ctx.Path()) != "/next" {
				t.Errorf("step %d: the pipelined request gave %v, %d, %q", step, o, n, ctx.Path())
			}
			got = true
		}
		if !got {
			t.Fatalf("step %d: no request", step)
		}
		if step == 1 && len(in) > len(first) {
			t.Errorf("with one byte at a time the input grew to %d bytes for a %d-byte request: the chunk framing was not dropped", len(in), len(first))
		}
	}
}
