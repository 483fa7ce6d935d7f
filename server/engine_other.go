//go:build !linux

package server

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/gust-http/gust/internal/fileserve"
)

// engine is the portable fallback: a goroutine per connection on the net
// package, serving the same handlers with the same parser and limits.
type engine struct {
	srv  *Server
	ln   net.Listener
	addr net.Addr

	mu    sync.Mutex
	conns map[*fallbackConn]struct{}
}

type fallbackConn struct {
	net.Conn
	srv      *Server
	hijacked bool
}

func newEngine(s *Server, addr string) (*engine, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if s.tlsConf != nil {
		ln = tls.NewListener(ln, s.tlsConf) // tls_other.go: Request.TLS
	}
	return &engine{srv: s, ln: ln, addr: ln.Addr(), conns: make(map[*fallbackConn]struct{})}, nil
}

// drained: the portable engine's listener closes at once.
func (e *engine) drained() bool { return true }

func (e *engine) run() error {
	for {
		nc, err := e.ln.Accept()
		if err != nil {
			if e.srv.shutting.Load() {
				return nil
			}
			return err
		}
		s := e.srv
		if s.cfg.MaxConns > 0 && s.counters.open.Load() >= int64(s.cfg.MaxConns) {
			nc.Close()
			s.counters.rejected.Add(1)
			continue
		}
		c := &fallbackConn{Conn: nc, srv: s}
		e.mu.Lock()
		e.conns[c] = struct{}{}
		e.mu.Unlock()
		s.counters.open.Add(1)
		s.counters.accepted.Add(1)
		go func() {
			defer func() { // deferred: a handler may end the goroutine (runtime.Goexit)
				e.mu.Lock()
				delete(e.conns, c)
				e.mu.Unlock()
				if !c.hijacked {
					s.counters.open.Add(-1) // else Hijack did
				}
			}()
			c.serve()
		}()
	}
}

func (c *fallbackConn) serve() {
	s := c.srv
	ctx := &Ctx{srv: s}
	defer func() {
		if c.hijacked {
			return
		}
		if ctx.exited {
			// The handler called runtime.Goexit: send what serve left, and close.
			c.writeAll(ctx.exitOut)
		}
		c.Close()
	}()
	buf := make([]byte, 0, 4096)
	var out []byte
	var rd reading
	at := site{ctx: ctx, peer: c, sink: c}
	c.SetReadDeadline(time.Now().Add(s.cfg.ReadHeaderTimeout))
	for {
		kind, rest, o, _ := s.step(&at, &rd, buf, out[:0])
		out = o
		switch kind {
		case stepBad:
			c.Write(out)
			return
		case stepServed:
			if ctx.hijacked {
				c.hijacked = true // the handler closes it
				return
			}
			c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
			if _, err := c.Write(out); err != nil || ctx.closeConn {
				return
			}
			buf = buf[:copy(buf, rest)]
			c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
			continue
		}
		if len(out) > 0 {
			c.Write(out) // 100 Continue
		}
		buf = rest
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := c.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			s.counters.bytesIn.Add(int64(n))
			buf = buf[:len(buf)+n]
			c.SetReadDeadline(time.Now().Add(s.cfg.ReadHeaderTimeout))
		}
		if err != nil {
			return
		}
	}
}

func (c *fallbackConn) writeAll(p []byte) error {
	c.SetWriteDeadline(time.Now().Add(c.srv.cfg.WriteTimeout))
	_, err := c.Write(p)
	return err
}

// hijack hands the connection to the handler; serve lets go of it when the
// handler returns.
func (c *fallbackConn) hijack(ctx *Ctx) (net.Conn, error) {
	if len(ctx.pending) > 0 {
		if err := c.writeAll(ctx.pending); err != nil {
			return nil, err
		}
		ctx.pending = ctx.pending[:0]
	}
	c.SetDeadline(time.Time{})
	return c.Conn, nil
}

func (c *fallbackConn) remoteAddr() net.Addr { return c.RemoteAddr() }

func (e *engine) beginShutdown() { e.ln.Close() }

func (e *engine) closeIdle() {
	// Connections blocked in Read between requests: wake them so that they
	// see the shutdown; busy ones finish their response first.
	e.mu.Lock()
	defer e.mu.Unlock()
	for c := range e.conns {
		c.SetReadDeadline(time.Now())
	}
}

func (e *engine) stop() {
	e.ln.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	for c := range e.conns {
		c.Close()
	}
}

// discard releases the listener of an engine that never ran.
func (e *engine) discard() { e.ln.Close() }

// dupFile is never called here: the fallback reads file bodies when they
// are attached (Ctx.files is false).
func dupFile(fd uintptr, name string) (*fileserve.File, error) { return nil, errors.ErrUnsupported }
