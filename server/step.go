package server

import "github.com/gust-http/gust/internal/http1"

// reading is how far a connection got with the request it is reading,
// kept between steps: the chunked body decoded so far and whether 100
// Continue has been sent for it.
type reading struct {
	chunk        chunkProgress
	sentContinue bool
}

// done forgets the request just consumed.
func (r *reading) done() {
	r.chunk.reset()
	r.sentContinue = false
}

// stepKind says what step did with the input.
type stepKind uint8

const (
	stepServed   stepKind = iota // a request was served; its response is in out
	stepNeedHead                 // no complete head yet: keep the input, read more
	stepNeedBody                 // a head whose body is still arriving: keep the input, read more
	stepStream                   // a head whose body is still arriving, to serve now with the body streamed
	stepDispatch                 // a request for a worker: nothing was done
	stepBad                      // a request that cannot be served: the error response is in out; close
)

// site is where steps run: what a request served there can do and see.
// A loop and a worker each have one; a handler started on a loop and
// moved to a worker would change sites, not code.
type site struct {
	ctx  *Ctx
	peer peer         // the connection, for RemoteAddr and Hijack
	sink responseSink // where Flush writes; nil where handlers must not wait (a loop)
	// dispatch leaves requests to a worker (Pooled mode, on a loop).
	dispatch bool
	// stream serves a request whose body is still arriving at once, its
	// body read from the socket as the handler goes (a worker, for the
	// adapter).
	stream bool
}

// step is the one driver of nextRequest's outcomes, for every caller: it
// parses the request at the start of data and does what the outcome calls
// for, short of any I/O. It returns what it did, the input left (after a
// served request: what followed it; while waiting: what to keep), out with
// whatever must be written appended (responses, 100 Continue, an error),
// and for stepStream the length of the head.
func (s *Server) step(at *site, r *reading, data, out []byte) (kind stepKind, rest, outNext []byte, headLen int) {
	ctx := at.ctx
	outcome, total, status := s.nextRequest(data, ctx, &r.chunk)
	if outcome == gotRequest || s.streamsBody(outcome) {
		if at.dispatch {
			return stepDispatch, data, out, 0
		}
		if outcome != gotRequest && at.stream {
			return stepStream, data, out, total
		}
	}
	switch outcome {
	case gotRequest:
		ctx.peer = at.peer
		if at.sink != nil {
			ctx.w = at.sink
			ctx.rest = data[total:]
		}
		out = s.serve(ctx, out)
		r.done()
		return stepServed, data[total:], out, 0
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
