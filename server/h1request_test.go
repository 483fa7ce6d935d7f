package server

import (
	"strings"
	"testing"
)

func TestStepDrivesEveryOutcome(t *testing.T) {
	const get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	const post = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345"
	const expect = "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n"
	tests := []struct {
		name      string
		at        site
		streams   bool // the server streams bodies (adapter, Pooled)
		input     string
		kind      stepKind
		rest      string
		out       string // a prefix of what step appended
		headLen   int
		continued bool // reading.sentContinue after the step
	}{
		{name: "a complete request is served where the site serves", input: get + "GET /next",
			kind: stepServed, rest: "GET /next", out: "HTTP/1.1 200 OK\r\n"},
		{name: "a complete request goes to a worker from a dispatching loop", at: site{dispatch: pooled{}}, input: get,
			kind: stepDispatch, rest: get, headLen: len(get)},
		{name: "a partial head waits", input: "GET / HT", kind: stepNeedHead, rest: "GET / HT"},
		{name: "a partial body waits", input: post, kind: stepNeedBody, rest: post},
		{name: "a partial body asking for 100 Continue gets it", input: expect,
			kind: stepNeedBody, rest: expect, out: "HTTP/1.1 100 Continue\r\n\r\n", continued: true},
		{name: "a partial body is streamed where the site streams", at: site{stream: true}, streams: true, input: post,
			kind: stepStream, rest: post, headLen: len(post) - 5},
		{name: "a partial body waits where the site cannot stream", streams: true, input: post,
			kind: stepNeedBody, rest: post},
		{name: "a partial body goes to a worker from a dispatching loop when bodies stream", at: site{dispatch: pooled{}}, streams: true,
			input: post, kind: stepDispatchBody, rest: post, headLen: len(post) - 5},
		{name: "a request whose route waits goes to a worker from an Auto loop", at: site{dispatch: &fakeAuto{wait: true}}, input: get,
			kind: stepDispatch, rest: get, headLen: len(get)},
		{name: "a request whose route is fast is served on an Auto loop", at: site{dispatch: &fakeAuto{}}, input: get + "GET /next",
			kind: stepServed, rest: "GET /next", out: "HTTP/1.1 200 OK\r\n"},
		{name: "a handler that outlived its budget on an Auto loop is reported moved", at: site{dispatch: &fakeAuto{moved: true}}, input: get,
			kind: stepMoved, out: "HTTP/1.1 200 OK\r\n"},
		{name: "a partial body goes to a worker from an Auto loop when bodies stream", at: site{dispatch: &fakeAuto{}}, streams: true,
			input: post, kind: stepDispatchBody, rest: post, headLen: len(post) - 5},
		{name: "a malformed request gets an error to close with", input: "GET / HTTP/1.1\r\nBad Header\r\n\r\n",
			kind: stepBad, out: "HTTP/1.1 400 Bad Request\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ctx := inMemory(t, hello)
			s.streamBodies = tt.streams
			at := tt.at
			at.ctx = ctx
			var r reading
			kind, rest, out, headLen := s.step(&at, &r, []byte(tt.input), nil)
			if kind != tt.kind || string(rest) != tt.rest || headLen != tt.headLen || r.sentContinue != tt.continued {
				t.Fatalf("step = %v, rest %q, head %d, continued %v; want %v, %q, %d, %v",
					kind, rest, headLen, r.sentContinue, tt.kind, tt.rest, tt.headLen, tt.continued)
			}
			if !strings.HasPrefix(string(out), tt.out) || tt.out == "" && len(out) > 0 {
				t.Fatalf("out = %q, want it to start with %q", out, tt.out)
			}
		})
	}
	t.Run("100 Continue is sent once per request", func(t *testing.T) {
		s, ctx := inMemory(t, hello)
		at := site{ctx: ctx}
		var r reading
		_, _, out, _ := s.step(&at, &r, []byte(expect), nil)
		_, _, out, _ = s.step(&at, &r, []byte(expect+"123"), out)
		if n := strings.Count(string(out), "100 Continue"); n != 1 {
			t.Fatalf("%d interim responses, want 1: %q", n, out)
		}
	})
}

// TestStepDoesNotAllocate holds the step a loop runs per request to zero
// allocations, as the native path is.
func TestStepDoesNotAllocate(t *testing.T) {
	s, ctx := inMemory(t, hello)
	at := site{ctx: ctx}
	var r reading
	out := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(1000, func() {
		kind, _, o, _ := s.step(&at, &r, wrkRequest, out[:0])
		if kind != stepServed {
			t.Fatalf("step = %v", kind)
		}
		out = o
	})
	if allocs != 0 {
		t.Errorf("a step allocates %.1f times per request, want 0", allocs)
	}
}

// fakeAuto is an Auto loop's side of step, decided in advance.
type fakeAuto struct{ wait, moved bool }

func (f *fakeAuto) toWorker([]byte) bool { return f.wait }
func (f *fakeAuto) offLoop() bool        { return true }
func (f *fakeAuto) watched() bool        { return true }
func (f *fakeAuto) enter()               {}
func (f *fakeAuto) leave() bool          { return !f.moved }
func (f *fakeAuto) moveOff(*Ctx)         {}

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
