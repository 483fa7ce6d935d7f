package server

import "github.com/gust-http/gust/internal/http1"

// FlushHook lets a handler wrapper (compression, say) rewrite a streamed
// response: Ctx.Flush calls BeforeFlush before anything is sent (and only
// when it will send: not when it returns ErrNotStreamable),
// and the hook may change the headers (until the first Flush has sent
// them) and replace the body part with SetBody.
type FlushHook interface {
	BeforeFlush(c *Ctx)
}

// SetFlushHook installs h for the rest of this request (nil removes it).
// The wrapper that installs a hook handles the body left unflushed when
// the inner handler returns itself: the hook runs only on Flush.
func (c *Ctx) SetFlushHook(h FlushHook) { c.hook = h }

// runFlushHook runs the hook once Flush is sure to send (a Flush refused
// in Inline mode leaves the body as the handler wrote it).
func (c *Ctx) runFlushHook() {
	if c.hook != nil {
		c.hook.BeforeFlush(c)
	}
}

// ResponseBody returns the response body written and not yet sent (all
// of it, unless Flush was called). It is valid until the next write.
func (c *Ctx) ResponseBody() []byte { return c.out }

// ResponseHeader returns the value of the first response header field
// named name (case-insensitive) the handler set, or nil.
func (c *Ctx) ResponseHeader(name string) []byte {
	for rest := c.header; len(rest) > 0; {
		line, next := nextHeaderLine(rest)
		rest = next
		if n, v, ok := splitHeaderLine(line); ok && http1.EqualFold(n, name) {
			return v
		}
	}
	return nil
}

// DelResponseHeader removes every response header field named name
// (case-insensitive) the handler set, in place.
func (c *Ctx) DelResponseHeader(name string) {
	kept := c.header[:0]
	for rest := c.header; len(rest) > 0; {
		line, next := nextHeaderLine(rest)
		rest = next
		if n, _, ok := splitHeaderLine(line); ok && http1.EqualFold(n, name) {
			continue
		}
		kept = append(kept, line...) // never ahead of rest: copy is safe in place
	}
	c.header = kept
	switch {
	case http1.EqualFold(stringBytes(name), "Content-Type"):
		c.hasCT = false
	case http1.EqualFold(stringBytes(name), "Server"):
		c.hasServer = false
	}
}

// nextHeaderLine splits off the first "Name: value\r\n" line of h, CRLF
// included.
func nextHeaderLine(h []byte) (line, rest []byte) {
	for i := 0; i+1 < len(h); i++ {
		if h[i] == '\r' && h[i+1] == '\n' {
			return h[:i+2], h[i+2:]
		}
	}
	return h, nil
}

// splitHeaderLine returns a line's name and value (CRLF and the blanks
// after the colon left out).
func splitHeaderLine(line []byte) (name, value []byte, ok bool) {
	colon := 0
	for colon < len(line) && line[colon] != ':' {
		colon++
	}
	if colon == len(line) {
		return nil, nil, false
	}
	name, value = line[:colon], line[colon+1:]
	if n := len(value); n >= 2 && value[n-2] == '\r' && value[n-1] == '\n' {
		value = value[:n-2]
	}
	for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
		value = value[1:]
	}
	return name, value, true
}
