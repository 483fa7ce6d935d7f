package server

import (
	"fmt"
	"runtime/debug"

	"github.com/gust-http/gust/internal/http1"
)

// One HTTP/1.1 request, top to bottom, the same for every caller (a
// loop, a worker, the portable engine): step parses the request at the
// start of the input (nextRequest), asks the site's dispatcher where its
// handler runs, and either hands it on (to a worker, or to be streamed)
// or serves it here: serveParsed, serve, runHandler, finish. What it does
// with the outcome short of any I/O is the caller's to carry out (a
// loop's serveInput, a worker's serveWork). Below the serving come the
// parse's outcomes and the state a connection keeps between steps.

// stepKind says what step did with the input.
type stepKind uint8

const (
	stepServed       stepKind = iota // a request was served; its response is in out
	stepNeedHead                     // no complete head yet: keep the input, read more
	stepNeedBody                     // a head whose body is still arriving: keep the input, read more
	stepStream                       // a head whose body is still arriving, to serve now with the body streamed
	stepDispatch                     // a complete request for a worker, parsed into the site's Ctx, not served
	stepDispatchBody                 // stepDispatch for a head whose body is still arriving (to stream)
	stepMoved                        // stepServed, but the handler outlived its budget: the caller's loop went on without it
	stepBad                          // a request that cannot be served: the error response is in out; close
)

// site is where steps run: what a request served there can do and see.
// A loop and a worker each have one; a handler started on a loop and
// moved to a worker changes sites, not code.
type site struct {
	ctx  *Ctx
	peer peer         // the connection, for RemoteAddr and Hijack
	sink responseSink // where Flush writes; nil where handlers must not wait (a loop)
	// dispatch says where handlers run; nil runs them here.
	dispatch dispatcher
	// stream serves a request whose body is still arriving at once, its
	// body read from the socket as the handler goes (a worker).
	stream bool
	// files: the connection sends a file body after the head itself
	// (Ctx.file), rather than having it read into memory.
	files bool
}

// dispatcher returns where the site's handlers run.
func (at *site) dispatcher() dispatcher {
	if at.dispatch == nil {
		return runHere{}
	}
	return at.dispatch
}

// step is the one driver of nextRequest's outcomes, for every caller: it
// parses the request at the start of data and does what the outcome calls
// for, short of any I/O. It returns what it did, the input left (after a
// served request: what followed it; while waiting: what to keep), out with
// whatever must be written appended (responses, 100 Continue, an error),
// and for stepStream and stepDispatchBody the length of the head, for
// stepDispatch the length of the request.
func (s *Server) step(at *site, r *reading, data, out []byte) (kind stepKind, rest, outNext []byte, n int) {
	ctx := at.ctx
	d := at.dispatcher()
	outcome, total, status := s.nextRequest(data, ctx, r)
	if outcome == gotRequest {
		if d.toWorker(ctx.req.Path) {
			return stepDispatch, data, out, total
		}
	} else if s.streamsBody(outcome) {
		if at.stream {
			return stepStream, data, out, total
		}
		if d.offLoop() {
			return stepDispatchBody, r.chunk.trim(data), out, total
		}
	}
	switch outcome {
	case gotRequest:
		kind = stepServed
		d.enter()
		out = s.serveParsed(at, r, data, total, out)
		if !d.leave() {
			kind = stepMoved
		}
		return kind, data[total:], out, 0
	case badRequest:
		return stepBad, nil, http1.AppendError(out, status), 0
	case needContinue:
		if !r.sentContinue {
			out = http1.AppendContinue(out)
			r.sentContinue = true
		}
	}
	kind = stepNeedBody
	if outcome == needMore {
		kind = stepNeedHead
	}
	return kind, r.chunk.trim(data), out, 0
}

// serveParsed serves the complete request parsed into at's Ctx, which
// spans data[:total], and appends its response to out.
func (s *Server) serveParsed(at *site, r *reading, data []byte, total int, out []byte) []byte {
	ctx := at.ctx
	ctx.peer = at.peer
	ctx.rest = data[total:] // for Hijack
	ctx.files = at.files
	if at.sink != nil {
		ctx.w = at.sink
	} else if d := at.dispatcher(); d.watched() {
		ctx.mover = d
	}
	out = s.serve(ctx, out)
	r.done()
	return out
}

// serve runs the handler on ctx and appends the response to dst. A
// handler that panics gets a 500 (if nothing was sent yet) and its
// connection closed; the panic is logged and the server goes on. So does a
// handler that calls runtime.Goexit, except that its goroutine ends: serve
// never returns, and the response is left in ctx for the caller's deferred
// call to send (see Ctx.exited).
func (s *Server) serve(ctx *Ctx, dst []byte) []byte {
	ctx.srv = s
	if ctx.req.Close {
		ctx.closeConn = true
	}
	ctx.pending = dst // a handler that flushes writes these first
	s.counters.inflight.Add(1)
	panicked := s.runHandler(ctx, dst)
	return s.finish(ctx, dst, panicked)
}

// finish ends the exchange the handler has left: it appends the response
// (or, after a fault, what is left to send) to dst.
func (s *Server) finish(ctx *Ctx, dst []byte, faulted bool) []byte {
	if ctx.file != nil && (faulted || ctx.hijacked || ctx.upgrade != nil) {
		ctx.file.release() // no body follows these
		ctx.file = nil
	}
	if !ctx.hijacked {
		s.counters.inflight.Add(-1) // else Hijack did
	}
	if s.shutting.Load() && (drainsNow(ctx) || s.drainingAll()) {
		ctx.closeConn = true // tell the client not to send more
	}
	s.counters.requests.Add(1)
	if ctx.hijacked {
		// The connection is the handler's now: nothing more goes on it
		// from here (Hijack wrote the earlier responses).
		ctx.closeConn = true
		ctx.pending = nil
		return dst[:0]
	}
	if ctx.pending == nil || len(ctx.pending) < len(dst) {
		dst = dst[:0] // Flush has written them
	}
	ctx.pending = nil
	if faulted || ctx.upgrade != nil && s.shutting.Load() {
		ctx.upgrade = nil // a faulted handler's upgrade is not made, nor one during Shutdown
	}
	if faulted {
		ctx.closeConn = true
		if !ctx.streaming {
			return http1.AppendError(dst, 500)
		}
		return dst // a truncated chunked body tells the client something broke
	}
	if ctx.upgrade != nil {
		return ctx.appendUpgrade(dst) // the connection switches once this is written
	}
	if st, ok := ctx.stream.(interface{ settle() bool }); ok && !ctx.streaming && !st.settle() {
		// The handler left a body that will not be read: say so before
		// the head goes, so the client expects the close.
		ctx.closeConn = true
	}
	return ctx.appendResponse(dst)
}

func (s *Server) runHandler(ctx *Ctx, dst []byte) (panicked bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if v := recover(); v != nil {
			panicked = true
			s.cfg.ErrorLog.Printf("gust/server: panic serving %s %s: %v\n%s", ctx.req.Method, ctx.req.Target, v, debug.Stack())
			return
		}
		// runtime.Goexit, which cannot be stopped: finish here as for a
		// panic, and leave the response for the caller's deferred call.
		s.cfg.ErrorLog.Printf("gust/server: handler called runtime.Goexit serving %s %s", ctx.req.Method, ctx.req.Target)
		ctx.exitOut = s.finish(ctx, dst, true)
		ctx.exited = true
	}()
	s.Handler.ServeGust(ctx)
	returned = true
	return false
}

// parseOutcome says what nextRequest found at the start of the input.
type parseOutcome uint8

const (
	needMore     parseOutcome = iota // no complete head yet
	needBody                         // a complete head; its body is not all here yet
	needContinue                     // needBody, and the head asks for 100-continue
	gotRequest                       // a complete request is in ctx
	badRequest                       // answer with the status and close
)

// nextRequest parses the request at the start of data into ctx: the head
// in place, the body as a view (Content-Length) or decoded in place
// (chunked, which rewrites data after the head and resumes from r's chunk
// progress when called again with the same request and more bytes). It
// returns the outcome, the bytes the request spans (for needBody and needContinue,
// the head's), and for badRequest the status to answer.
func (s *Server) nextRequest(data []byte, ctx *Ctx, r *reading) (parseOutcome, int, int) {
	ctx.reset()
	n, err := http1.ParseRequestHead(data, s.cfg.limits(), &ctx.req)
	if err == http1.ErrIncomplete {
		return needMore, 0, 0
	}
	if err != nil {
		return badRequest, 0, http1.StatusForError(err)
	}
	ctx.rawHead = data[:n]
	ctx.head = string(ctx.req.Method) == "HEAD"
	switch http1.RequestBodyKind(&ctx.req) {
	case http1.BodyLength:
		cl := ctx.req.ContentLength
		if cl > s.cfg.MaxBodyBytes {
			return badRequest, 0, 413
		}
		if int64(len(data)-n) < cl {
			if ctx.req.Expect100 {
				return needContinue, n, 0
			}
			return needBody, n, 0
		}
		ctx.body = data[n : n+int(cl)]
		return gotRequest, n + int(cl), 0
	case http1.BodyChunked:
		// The body is decoded in place, behind the head: data bytes move
		// down over the chunk framing, so the decoded body is a view of
		// data and no copy is kept. r's progress carries how far decoding
		// got across reads, so every byte is decoded once however the body arrives.
		cp := r.progress()
		raw, body := n+cp.raw, n+cp.body
		for {
			k, chunk, done, err := cp.dec.Decode(data[raw:])
			if err != nil {
				cp.reset()
				return badRequest, 0, 400
			}
			body += copy(data[body:], chunk)
			raw += k
			cp.wire += int64(k)
			if int64(body-n) > s.cfg.MaxBodyBytes ||
				// Chunk framing may be far larger than the data it carries:
				// bound the bytes on the wire too, not only the decoded ones.
				cp.wire > 2*s.cfg.MaxBodyBytes+int64(s.cfg.MaxHeaderBytes) {
				cp.reset()
				return badRequest, 0, 413
			}
			if done {
				break
			}
			if raw == len(data) {
				// All consumed: drop the framing behind the decoded body.
				cp.raw, cp.body, cp.keep = body-n, body-n, body
				if ctx.req.Expect100 {
					return needContinue, n, 0
				}
				return needBody, n, 0
			}
		}
		// Kept until the caller has consumed the request (see
		// chunkProgress.reset): parsing the same bytes again, as a worker
		// does after its loop, finds the body already decoded.
		cp.raw, cp.body = raw-n, body-n
		ctx.body = data[n:body]
		return gotRequest, raw, 0
	}
	return gotRequest, n, 0
}

// streamsBody reports whether a request whose head is in and whose body is
// still arriving (needBody, needContinue) is served now, its body read as
// the handler goes, rather than once the body is all in.
func (s *Server) streamsBody(o parseOutcome) bool {
	return s.streamBodies && (o == needBody || o == needContinue)
}

// String describes an outcome, for test failures.
func (o parseOutcome) String() string {
	return fmt.Sprint([...]string{"needMore", "needBody", "needContinue", "gotRequest", "badRequest"}[o])
}

// reading is how far a connection got with the request it is reading,
// kept between steps: the chunked body decoded so far and whether 100
// Continue has been sent for it.
type reading struct {
	// chunk is how far a chunked request body got: made at the
	// connection's first chunked body and kept, nil before (an idle
	// connection that never saw one holds none).
	chunk        *chunkProgress
	sentContinue bool
}

// progress returns r's chunk progress, made at the first chunked body.
func (r *reading) progress() *chunkProgress {
	if r.chunk == nil {
		r.chunk = new(chunkProgress)
	}
	return r.chunk
}

// done forgets the request just consumed.
func (r *reading) done() {
	if r.chunk != nil {
		r.chunk.reset()
	}
	r.sentContinue = false
}

// chunkProgress is how far a connection got decoding a chunked request
// body that has not all arrived; the zero value is at the start.
type chunkProgress struct {
	dec  http1.ChunkedDecoder
	raw  int // bytes of the body's encoding consumed, after the head, still in the input
	body int // decoded bytes, moved to just after the head
	// wire counts every byte of the body's encoding consumed, trimmed or
	// not, against the bound on framing.
	wire int64
	// keep, after needBody or needContinue, is how many bytes at the
	// start of the input still matter: every byte received was decoded
	// (or is held by the decoder), so the framing behind the decoded body
	// can go, and a body arriving in tiny chunks costs no more memory
	// than its data. 0 means all of them.
	keep int
}

// trim cuts data to the bytes that still matter after needBody or
// needContinue (see keep); the caller keeps the result as its input.
func (p *chunkProgress) trim(data []byte) []byte {
	if p == nil {
		return data
	}
	if p.keep > 0 && p.keep < len(data) {
		data = data[:p.keep]
	}
	p.keep = 0
	return data
}

// reset forgets the progress: called once the request that cp belongs to
// has been consumed or refused.
func (p *chunkProgress) reset() { *p = chunkProgress{} }
