package server

import "github.com/gust-http/gust/internal/http1"

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
