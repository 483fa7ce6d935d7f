package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"unsafe"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
)

// Ctx is one request and its response, for the native API. Request fields
// are views into the server's buffers, valid until the handler returns.
// Setters copy their arguments, so callers may reuse them at once.
type Ctx struct {
	req     head.Request
	rawHead []byte // the bytes the head was parsed from; req's slices point into it
	body    []byte
	stream  io.ReadCloser // the body, when it is read from the socket as the handler goes
	// bodyBuf holds a streamed body that Body read whole; bodyRead says it has.
	bodyBuf    []byte
	bodyRead   bool
	bodyReader bytes.Reader
	// mover, for a handler on a loop in Auto mode, moves the handler off
	// the loop before it waits on the network itself (Flush, Hijack).
	mover dispatcher
	peer  peer // the connection, for RemoteAddr
	head  bool // HEAD request: the body is computed but not sent

	status    int
	header    []byte // extra header lines, "Name: value\r\n" each
	hasCT     bool   // the handler set Content-Type
	hasServer bool   // the handler set Server
	out       []byte // the response body being built (or, once streaming, the next chunk)
	streaming bool   // the head has been sent; the body follows in chunks (or raw, to HTTP/1.0)
	rawStream bool   // streaming to an HTTP/1.0 client: raw body ended by closing
	headLen   int64  // a Content-Length the handler set, kept for HEAD responses (-1: none)
	pending   []byte // earlier pipelined responses not yet written; Flush writes them first
	closeConn bool   // the connection closes after this response
	hijacked  bool   // the handler took the connection over (adapter Hijack)
	rest      []byte // bytes received after this request, for Hijack

	srv *Server
	w   responseSink // where a streamed response goes, nil in Inline mode
	//lint:ignore U1000 used by the Linux engine's workers
	resp []byte // a worker's buffer for serialized responses, kept with the Ctx

	// exited says the handler called runtime.Goexit, so serve never
	// returned; exitOut is what serve would have returned: earlier
	// responses not yet written and the 500, to send before closing.
	exited  bool
	exitOut []byte

	onStream streamFlusher // the HTTP/2 stream of this request; nil for HTTP/1.1
	// file is a body to send from a file after the head (filebody.go);
	// files says the connection can send one (HTTP/1.1 on Linux), else a
	// file is read into out when attached.
	file    *fileBody
	files   bool
	upgrade *wsUpgrade // an accepted WebSocket upgrade (ws.go): the connection switches after the response
	// upgraded holds what upgrade points to, so that an upgrade costs no
	// allocation; an HTTP/2 stream that outlives the Ctx takes a copy.
	upgraded wsUpgrade
	hook     FlushHook // a wrapper's rewrite of what Flush sends (ctxhook.go)
}

// responseSink writes bytes of a response straight to the client, for
// handlers that stream (Flush). It blocks until written or WriteTimeout.
type responseSink interface {
	writeAll(p []byte) error
}

// ErrNotStreamable is returned by Flush in Inline mode, where a handler
// must not wait for the network.
var ErrNotStreamable = errors.New("server: Flush needs Auto or Pooled mode")

// Method returns the request method, e.g. GET.
func (c *Ctx) Method() []byte { return c.req.Method }

// Path returns the request-target's path, e.g. /users/7, still
// percent-encoded as sent.
func (c *Ctx) Path() []byte { return c.req.Path }

// Query returns the raw query string without '?', or nil.
func (c *Ctx) Query() []byte { return c.req.Query }

// Target returns the whole request-target as sent.
func (c *Ctx) Target() []byte { return c.req.Target }

// Host returns the Host header.
func (c *Ctx) Host() []byte { return c.req.Host }

// Header returns the first value of the named request header
// (case-insensitive), or nil.
func (c *Ctx) Header(name string) []byte { return c.req.Get(name) }

// VisitHeaders calls f for every request header field in order.
func (c *Ctx) VisitHeaders(f func(name, value []byte)) {
	for _, h := range c.req.Headers {
		f(h.Name, h.Value)
	}
}

// Body returns the whole request body (bounded by Config.MaxBodyBytes).
// In Auto and Pooled modes (on Linux), a body that had not all arrived
// with the head is read from the client when Body is first called; if
// the client fails to send it all in time, Body returns what arrived and
// the connection closes after the response. A handler that wants only
// part of a body, or to read it as it comes, uses BodyReader instead.
func (c *Ctx) Body() []byte {
	if c.stream != nil && !c.bodyRead {
		c.bodyRead = true
		buf := bytes.NewBuffer(c.bodyBuf[:0])
		buf.ReadFrom(c.stream) // an error ends the connection after the response
		c.bodyBuf = buf.Bytes()
		c.body = c.bodyBuf
	}
	return c.body
}

// BodyReader returns the request body as a reader. In Auto and Pooled
// modes (on Linux), a body that had not all arrived with the head is read
// from the client as the handler reads, so the handler decides how much
// of it to take: what it leaves unread is read and discarded after it
// returns, up to 256 KiB, or the connection is closed. Otherwise, and
// once Body has been called, it reads the bytes Body returns. The reader
// is valid until the handler returns.
func (c *Ctx) BodyReader() io.Reader {
	if c.stream != nil && !c.bodyRead {
		return c.stream
	}
	c.bodyReader.Reset(c.body)
	return &c.bodyReader
}

// offLoop moves a handler running on a loop in Auto mode to a goroutine
// of its own, for what waits on the network (Flush, Hijack).
func (c *Ctx) offLoop() {
	if c.w == nil && c.mover != nil {
		c.mover.moveOff(c)
	}
}

// RemoteAddr returns the client's address (looked up when asked, so an
// idle connection does not have to store it).
func (c *Ctx) RemoteAddr() net.Addr {
	if c.peer == nil {
		return nil
	}
	return c.peer.remoteAddr()
}

// peer is what a Ctx needs of its connection.
type peer interface {
	remoteAddr() net.Addr
}

// ProtoAtLeast reports whether the request's HTTP version is at least major.minor.
func (c *Ctx) ProtoAtLeast(major, minor int) bool {
	return c.req.Major > major || c.req.Major == major && c.req.Minor >= minor
}

// SetStatus sets the response status code (default 200).
func (c *Ctx) SetStatus(code int) {
	if code >= 100 && code < 1000 {
		c.status = code
	}
}

// Status returns the response status code set so far.
func (c *Ctx) Status() int { return c.status }

// SetHeader adds a response header field. Date and Server are set by the
// server unless given here; the server frames every response itself, so
// Content-Length and Transfer-Encoding are ignored, and "Connection: close"
// works as SetConnectionClose. Fields with CR, LF or NUL in them are
// dropped, so user input cannot split the response.
func (c *Ctx) SetHeader(name, value string) { c.SetHeaderBytes(stringBytes(name), stringBytes(value)) }

// SetHeaderBytes is SetHeader for byte slices.
func (c *Ctx) SetHeaderBytes(name, value []byte) {
	if !http1.ValidField(name, value) || !c.noteHeader(name, value) {
		return
	}
	c.header = append(c.header, name...)
	c.header = append(c.header, ": "...)
	c.header = append(c.header, value...)
	c.header = append(c.header, "\r\n"...)
}

// SetContentType sets the Content-Type header. Most handlers call it on
// every response: the name is known, so only the value is checked.
func (c *Ctx) SetContentType(value string) {
	v := stringBytes(value)
	if !http1.ValidFieldValue(v) {
		return
	}
	c.hasCT = true
	c.header = append(c.header, "Content-Type: "...)
	c.header = append(c.header, v...)
	c.header = append(c.header, "\r\n"...)
}

// noteHeader records headers the server must know about and reports
// whether the field should be written as given. The server frames every
// response itself, so Content-Length and Transfer-Encoding from a handler
// are dropped, and "Connection: close" becomes SetConnectionClose.
func (c *Ctx) noteHeader(n, value []byte) bool {
	switch {
	case http1.EqualFold(n, "Content-Type"):
		c.hasCT = true
	case http1.EqualFold(n, "Server"):
		c.hasServer = true
	case http1.EqualFold(n, "Content-Length"):
		if c.head {
			c.headLen = http1.ParseLength(value)
		}
		return false
	case http1.EqualFold(n, "Transfer-Encoding"), http1.EqualFold(n, "Date"):
		return false
	case http1.EqualFold(n, "Connection"):
		if http1.EqualFold(value, "close") {
			c.closeConn = true
		}
		return false
	}
	return true
}

// Write appends p to the response body.
func (c *Ctx) Write(p []byte) (int, error) {
	if c.file != nil {
		c.fileIntoOut() // what follows a file body goes after it
	}
	c.out = append(c.out, p...)
	return len(p), nil
}

// WriteString appends s to the response body.
func (c *Ctx) WriteString(s string) (int, error) {
	if c.file != nil {
		c.fileIntoOut()
	}
	c.out = append(c.out, s...)
	return len(s), nil
}

// SetBody replaces the response body with p.
func (c *Ctx) SetBody(p []byte) { c.dropFile(); c.out = append(c.out[:0], p...) }

// SetBodyString replaces the response body with s.
func (c *Ctx) SetBodyString(s string) { c.dropFile(); c.out = append(c.out[:0], s...) }

// SetConnectionClose makes the server close the connection after this response.
func (c *Ctx) SetConnectionClose() { c.closeConn = true }

// Flush sends the response head and the body written so far, and switches
// the response to chunked encoding; later writes are sent by later Flush
// calls or when the handler returns. It is available in Auto and Pooled
// modes; in Auto mode a handler on its loop that flushes is moved off the
// loop first, since the client may keep it waiting.
func (c *Ctx) Flush() error {
	if c.onStream != nil {
		return c.onStream.flushCtx(c) // a file body goes as DATA, read a piece at a time
	}
	if c.file != nil {
		c.fileIntoOut() // a streamed response carries its file as chunks
	}
	c.offLoop()
	if c.w == nil {
		return ErrNotStreamable
	}
	c.runFlushHook()
	if len(c.pending) > 0 {
		// Responses to earlier pipelined requests go first.
		if err := c.w.writeAll(c.pending); err != nil {
			return err
		}
		c.pending = c.pending[:0]
	}
	var buf []byte
	if !c.streaming {
		c.streaming = true
		if !c.ProtoAtLeast(1, 1) {
			// HTTP/1.0 has no chunked encoding: the body ends with the connection.
			c.rawStream = true
			c.closeConn = true
		}
		buf = c.appendHead(nil, -1)
	}
	buf = c.appendBodyPart(buf)
	c.out = c.out[:0]
	if len(buf) == 0 {
		return nil
	}
	return c.w.writeAll(buf)
}

// appendBodyPart appends what the handler wrote since the last Flush, as a
// chunk (or raw, to an HTTP/1.0 client), unless the response has no body.
func (c *Ctx) appendBodyPart(dst []byte) []byte {
	if len(c.out) == 0 || c.head || !http1.BodyAllowed(c.status) {
		return dst
	}
	if c.rawStream {
		return append(dst, c.out...)
	}
	return http1.AppendChunk(dst, c.out)
}

// appendResponse appends the whole response (or, when streaming, its last
// chunk and the terminating chunk) to dst.
func (c *Ctx) appendResponse(dst []byte) []byte {
	if c.streaming {
		dst = c.appendBodyPart(dst)
		if !c.head && !c.rawStream && http1.BodyAllowed(c.status) {
			dst = http1.AppendLastChunk(dst)
		}
		return dst
	}
	length := len(c.out)
	if c.file != nil {
		return c.appendHead(dst, int(c.file.total)) // the connection sends the file after it
	}
	if c.head && length == 0 && c.headLen >= 0 {
		length = int(c.headLen) // HEAD: the length the GET would have
	}
	dst = c.appendHead(dst, length)
	if http1.BodyAllowed(c.status) && !c.head {
		dst = append(dst, c.out...)
	}
	return dst
}

// appendHead appends the status line and headers; length < 0 means the
// body follows in chunks.
func (c *Ctx) appendHead(dst []byte, length int) []byte {
	r := http1.Reply{
		Status:         c.status,
		Server:         !c.hasServer,
		Date:           c.srv.date.get(),
		Header:         c.header,
		Fixed:          c.srv.altSvcLine,
		HasContentType: c.hasCT,
		Close:          c.closeConn,
		KeepAlive:      c.req.Major == 1 && c.req.Minor == 0,
		Length:         length,
		Unframed:       c.rawStream,
	}
	return http1.AppendReply(dst, &r)
}

// reset prepares c for the next request, keeping its buffers.
func (c *Ctx) reset() {
	headers := c.req.Headers[:0]
	c.req = head.Request{Headers: headers}
	c.body = nil
	c.stream = nil
	c.bodyRead = false
	c.mover = nil
	c.hijacked, c.rest = false, nil
	c.rawHead = nil
	c.head = false
	c.status = 200
	c.header = c.header[:0]
	c.hasCT, c.hasServer = false, false
	c.out = c.out[:0]
	c.streaming, c.rawStream = false, false
	c.headLen = -1
	c.pending = nil
	c.closeConn = false
	c.w = nil
	c.exited, c.exitOut = false, nil
	c.upgrade = nil
	c.upgraded = wsUpgrade{}
	c.hook = nil
	if c.file != nil {
		c.file.release()
		c.file = nil
	}
	c.files = false
}

// stringBytes views s as bytes without copying; the bytes must not be modified.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// streamFlusher is what Ctx.Flush calls for a request on a multiplexed
// connection (an HTTP/2 stream), whose output goes through its connection's
// loop rather than straight to the socket.
type streamFlusher interface {
	flushCtx(c *Ctx) error
}
