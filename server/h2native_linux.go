//go:build linux

package server

import (
	"strconv"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// Handlers on HTTP/2 streams: the native Ctx on the loop (Inline) or a
// worker (Pooled), the net/http adapter on a worker (Pooled; both on the
// loop first in Auto mode, h2auto_linux.go); their responses turned into
// parts for the engine.

// runInline runs a stream's handler on the loop and starts its response.
func (hc *h2conn) runInline(st *h2stream, now int64) {
	l := hc.c.l
	s := l.srv
	ctx := l.seat.h2Ctx()
	st.fill(ctx)
	s.counters.inflight.Add(1)
	panicked := s.runHandler(ctx, nil)
	s.counters.inflight.Add(-1)
	s.counters.requests.Add(1)
	if st.loopBodyBuf && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
	p := st.finalPart(ctx, panicked, &l.streams.fields)
	ctx.onStream = nil
	hc.startPart(st, p, now) // writes the headers now: the scratch fields are free again
}

// run is serveWork, for the worker pool (task).
func (st *h2stream) run() { st.serveWork() }

// serveWork runs a stream's handler on a worker and posts its response.
func (st *h2stream) serveWork() {
	s := st.srv
	ctx := getCtx(s)
	st.fill(ctx)
	s.counters.inflight.Add(1)
	returned := false
	defer func() {
		if !returned {
			// runtime.Goexit: the stream is reset. runHandler counted the
			// request (ctx.exited); the adapter's did not.
			if !ctx.exited {
				s.counters.inflight.Add(-1)
				s.counters.requests.Add(1)
			}
			st.post(&h2part{reset: true}, 0)
			ctx.onStream = nil
		}
	}()
	var p h2part
	if a, ok := s.Handler.(*httpAdapter); ok {
		p = a.serveH2(ctx, st)
	} else {
		panicked := s.runHandler(ctx, nil)
		p = st.finalPart(ctx, panicked, nil)
	}
	returned = true
	s.counters.inflight.Add(-1)
	s.counters.requests.Add(1)
	if st.post(&p, 0) != nil {
		p.free()
	}
	if st.loopBodyBuf && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
	ctx.onStream = nil
	putCtx(ctx)
}

// finalPart is the rest of the response a native handler left in ctx.
// Its body moves to the part (the Ctx takes a pooled buffer), so the handler's
// goroutine need not wait for the client's window.
func (st *h2stream) finalPart(ctx *Ctx, panicked bool, scratch *fieldScratch) h2part {
	if panicked {
		if st.headersPosted {
			return h2part{reset: true}
		}
		return h2part{status: 500, fields: []http2.Field{{Name: "content-length", Value: "0"}}, end: true}
	}
	if u := ctx.upgrade; u != nil && !st.headersPosted {
		ctx.upgrade = nil
		st.headersPosted = true
		hasCT := ctx.hasCT
		ctx.hasCT = true // no body: no content-type made up
		fields := ctxFields(ctx, -1, scratch)
		ctx.hasCT = hasCT
		return wsUpgradePart(u, fields)
	}
	p := h2part{end: true}
	bodyOK := http1.BodyAllowed(ctx.status) && !ctx.head
	if !st.headersPosted {
		st.headersPosted = true
		length := len(ctx.out)
		if ctx.file != nil {
			length = int(ctx.file.total) // attachFile emptied out
		}
		if ctx.head && length == 0 && ctx.headLen >= 0 {
			length = int(ctx.headLen)
		}
		p.status = ctx.status
		p.fields = ctxFields(ctx, length, scratch)
	}
	if bodyOK && len(ctx.out) > 0 {
		p.body, p.own = ctx.out, ctx.out
		ctx.out = getBuf()
	}
	if bodyOK && ctx.file != nil {
		p.file, ctx.file = ctx.file, nil
	}
	return p
}

// flushCtx is Ctx.Flush for a stream: the headers (once) and the body so
// far go out as the windows allow. A body part is posted without waiting
// while the stream holds at most asyncFlushLimit bytes not yet framed (as
// the net/http adapter's Flush does), so that one goroutine can flush
// many streams of a connection and the loop frames them in one write;
// past that, or with a file, it returns once they are framed. A handler
// on its loop in Auto mode moves off it first: the client's window may
// keep it waiting.
func (st *h2stream) flushCtx(ctx *Ctx) error {
	ctx.offLoop()
	if st.ack == nil {
		return ErrNotStreamable // Inline mode: the loop must not wait
	}
	ctx.runFlushHook()
	p := h2part{}
	if !st.headersPosted {
		st.headersPosted = true
		p.status = ctx.status
		p.fields = ctxFields(ctx, -1, nil)
	}
	if http1.BodyAllowed(ctx.status) && !ctx.head {
		p.body = ctx.out
		p.file, ctx.file = ctx.file, nil // read by the loop; Flush returns once it is all framed
	}
	if p.status == 0 && len(p.body) == 0 && p.file == nil {
		return nil
	}
	if p.file == nil && st.asyncBytes.Load()+int64(len(p.body)) <= asyncFlushLimit {
		// Not waited for: the part takes the buffer, and a flush that
		// follows before the loop frames it joins it.
		p.own, p.async = ctx.out, len(p.body)
		ctx.out = getBuf()
		st.asyncBytes.Add(int64(p.async))
		if err := st.post(&p, 0); err != nil {
			st.asyncBytes.Add(-int64(p.async))
			p.free()
			return err
		}
		return nil
	}
	err := st.postWait(&p)
	ctx.out = ctx.out[:0]
	return err
}

// fieldScratch is the loop's reusable storage for the fields of responses
// written at once (Inline): the slice, and the last header block as a
// string, which the next response with the same headers reuses. (HPACK
// may keep the strings in its table, so they are never overwritten.)
type fieldScratch struct {
	fields []http2.Field
	lower  []byte
	last   string
}

// ctxFields turns the native response headers into HTTP/2 fields:
// lowercase names, the fields HTTP/2 forbids left out, Date, Server and
// Content-Type as an HTTP/1.1 response would have them, and content-length
// when length >= 0. With scratch the fields are valid until its next use.
func ctxFields(ctx *Ctx, length int, scratch *fieldScratch) []http2.Field {
	var fields []http2.Field
	if scratch != nil {
		fields = scratch.fields[:0]
		defer func() { scratch.fields = fields[:0] }()
	} else {
		fields = make([]http2.Field, 0, 8)
	}
	bodyOK := http1.BodyAllowed(ctx.status)
	if len(ctx.header) > 0 {
		var all string
		if scratch != nil {
			scratch.lower = lowerNames(append(scratch.lower[:0], ctx.header...))
			if string(scratch.lower) != scratch.last {
				scratch.last = string(scratch.lower)
			}
			all = scratch.last
		} else {
			all = string(lowerNames(append([]byte(nil), ctx.header...)))
		}
		for len(all) > 0 {
			line := all
			if i := indexCRLF(all); i >= 0 {
				line, all = all[:i], all[i+2:]
			} else {
				all = ""
			}
			colon := 0
			for colon < len(line) && line[colon] != ':' {
				colon++
			}
			if colon == len(line) {
				continue
			}
			name, value := line[:colon], line[colon+1:]
			for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
				value = value[1:]
			}
			switch name {
			case "keep-alive", "proxy-connection", "upgrade", "te":
				continue // connection-specific: malformed in HTTP/2 (RFC 9113 section 8.2.2)
			}
			fields = append(fields, http2.Field{Name: name, Value: value})
		}
	}
	if bodyOK && !ctx.hasCT && length != 0 {
		fields = append(fields, http2.Field{Name: "content-type", Value: "text/plain; charset=utf-8"})
	}
	if !ctx.hasServer {
		fields = append(fields, http2.Field{Name: "server", Value: "gust"})
	}
	fields = append(fields, http2.Field{Name: "date", Value: ctx.srv.dateString()})
	if ctx.srv.altSvc != "" {
		fields = append(fields, http2.Field{Name: "alt-svc", Value: ctx.srv.altSvc})
	}
	if length >= 0 && bodyOK {
		fields = append(fields, http2.Field{Name: "content-length", Value: lengthString(length)})
	}
	return fields
}

// lowerNames lowercases the name of each "Name: value\r\n" line in place.
func lowerNames(b []byte) []byte {
	inName := true
	for i, c := range b {
		switch {
		case c == '\n':
			inName = true
		case c == ':':
			inName = false
		case inName:
			b[i] = ascii.Lower(c)
		}
	}
	return b
}

func indexCRLF(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\r' && s[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// smallLengths are content-length values prebuilt, so small bodies cost
// no formatting.
var smallLengths = func() []string {
	s := make([]string, 1024)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func lengthString(n int) string {
	if n < len(smallLengths) {
		return smallLengths[n]
	}
	return strconv.Itoa(n)
}
