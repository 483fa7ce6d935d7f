package server

import "testing"

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
		buf := []byte(first + next)
		var cp chunkProgress
		ctx := &Ctx{srv: s}
		got := false
		for k := min(step, len(buf)); ; k = min(k+step, len(buf)) {
			outcome, total, status := s.nextRequest(buf[:k], ctx, &cp)
			if outcome == badRequest {
				t.Fatalf("step %d: %d bytes refused with %d", step, k, status)
			}
			if outcome != gotRequest {
				if k == len(buf) {
					t.Fatalf("step %d: still %v with every byte", step, outcome)
				}
				continue
			}
			if body := string(ctx.Body()); body != "hello, world" {
				t.Errorf("step %d: body %q", step, body)
			}
			if total != len(first) {
				t.Errorf("step %d: the request spans %d bytes, want %d", step, total, len(first))
			}
			// A worker parses the same bytes again after its loop did.
			if o, again, _ := s.nextRequest(buf[:k], ctx, &cp); o != gotRequest || again != total || string(ctx.Body()) != "hello, world" {
				t.Errorf("step %d: parsing again gave %v, %d, %q", step, o, again, ctx.Body())
			}
			cp.reset()
			rest := buf[total:len(buf)]
			if o, n, _ := s.nextRequest(rest, ctx, &cp); o != gotRequest || n != len(next) || string(ctx.Path()) != "/next" {
				t.Errorf("step %d: the pipelined request gave %v, %d, %q", step, o, n, ctx.Path())
			}
			got = true
			break
		}
		if !got {
			t.Fatalf("step %d: no request", step)
		}
	}
}
