package server

import (
	"context"
	"crypto/tls"
	"errors"
	"expvar"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// Server serves HTTP/1.1 and HTTP/2, over plain TCP or TLS, on event
// loops. Set Handler (and optionally Config), then call ListenAndServe (or
// ListenAndServeTLS), or Listen and Serve.
type Server struct {
	// Handler answers every request.
	Handler Handler
	// Config holds limits, timeouts and the dispatch mode; read once by Listen.
	Config Config

	cfg     Config
	date    *dateClock
	workers *workerPool
	eng     *engine

	mu       sync.Mutex
	listened bool
	serving  bool
	// streamBodies: request bodies that are still arriving are read as the
	// handler goes (Auto and Pooled modes) rather than whole first.
	streamBodies bool
	// closedEarly: Shutdown or Close ran between Listen and Serve.
	closedEarly bool
	done        chan struct{}

	shutting atomic.Bool
	// closeAllAt is when (Unix ns) Shutdown's spread is over: from then
	// on every HTTP/1.1 response says Connection: close. Before, the
	// loops close connections a share at a time (Config.DrainSpread), and
	// the others go on serving, so that their clients do not all
	// reconnect in the same instant. Zero (Close): at once.
	closeAllAt atomic.Int64
	counters   counters
	// movedNow counts handlers moved off their loops (Auto mode) that
	// are still finishing on their own goroutines.
	movedNow atomic.Int64

	// layer, if set, wraps each connection's plain transport (Linux
	// engine): how tests run the server over a transport that holds bytes
	// of its own, as TLS does.
	layer func(transport.Conn) transport.Conn
	// tlsConf is Config.TLS prepared by Listen (tls.go), nil for plain TCP;
	// filesTLS, if set, is what ListenAndServeTLS made of it and its files.
	tlsConf, filesTLS *tls.Config
	// altSvc is the Alt-Svc value advertising HTTP/3 (Config.HTTP3),
	// empty without it; altSvcLine is the same as an HTTP/1.1 field line.
	altSvc     string
	altSvcLine []byte
}

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown or Close.
var ErrServerClosed = errors.New("server: closed")

// counters are the server-wide statistics, updated atomically.
type counters struct {
	open     atomic.Int64
	accepted atomic.Int64
	rejected atomic.Int64
	requests atomic.Int64
	bytesIn  atomic.Int64
	bytesOut atomic.Int64
	inflight atomic.Int64
	movedOff atomic.Int64
	// WebSocket: connections open now, messages each way, sends dropped
	// for a client past MaxBuffered.
	wsOpen, wsMessagesIn, wsMessagesOut, wsDropped atomic.Int64
	// HTTP/3: QUIC connections open now, Retries sent, stateless resets
	// sent, datagrams dropped (refused, or not sent for a full socket).
	quicOpen, quicRetries, quicResets, quicDropped atomic.Int64
}

// Stats is a snapshot of a Server's counters.
type Stats struct {
	OpenConns     int64 `json:"open_conns"`      // connections open now
	Accepted      int64 `json:"accepted"`        // connections accepted since start
	Rejected      int64 `json:"rejected"`        // connections closed at once because of MaxConns
	Requests      int64 `json:"requests"`        // responses completed
	BytesRead     int64 `json:"bytes_read"`      // bytes received (over TLS: the plaintext)
	BytesWritten  int64 `json:"bytes_written"`   // bytes sent (over TLS: the plaintext)
	InFlight      int64 `json:"in_flight"`       // requests being handled now
	MovedOff      int64 `json:"moved_off"`       // handlers moved off their loop past their budget (Auto mode), since start
	Workers       int   `json:"workers"`         // worker goroutines (Pooled and Auto modes), busy or idle
	Queued        int   `json:"queued"`          // requests waiting for a worker
	Loops         int   `json:"loops"`           // event loops
	Goroutines    int   `json:"goroutines"`      // runtime.NumGoroutine, for the whole process
	WebSockets    int64 `json:"websockets"`      // WebSocket connections open now
	WSMessagesIn  int64 `json:"ws_messages_in"`  // WebSocket messages received since start
	WSMessagesOut int64 `json:"ws_messages_out"` // WebSocket messages queued to send since start (a broadcast counts each receiver)
	WSDropped     int64 `json:"ws_dropped"`      // WebSocket messages dropped for a client past MaxBuffered
	QUICConns     int64 `json:"quic_conns"`      // HTTP/3's QUIC connections open now (counted in OpenConns too)
	QUICRetries   int64 `json:"quic_retries"`    // Retry packets sent to new clients while many handshakes were in progress
	QUICResets    int64 `json:"quic_resets"`     // stateless resets sent for datagrams of no known connection
	QUICDropped   int64 `json:"quic_dropped"`    // datagrams dropped: not a client's Initial, over the handshake bound, or not sent for a full socket buffer
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	st := Stats{
		OpenConns:     s.counters.open.Load(),
		Accepted:      s.counters.accepted.Load(),
		Rejected:      s.counters.rejected.Load(),
		Requests:      s.counters.requests.Load(),
		BytesRead:     s.counters.bytesIn.Load(),
		BytesWritten:  s.counters.bytesOut.Load(),
		InFlight:      s.counters.inflight.Load(),
		MovedOff:      s.counters.movedOff.Load(),
		Loops:         s.cfg.Loops,
		Goroutines:    runtime.NumGoroutine(),
		WebSockets:    s.counters.wsOpen.Load(),
		WSMessagesIn:  s.counters.wsMessagesIn.Load(),
		WSMessagesOut: s.counters.wsMessagesOut.Load(),
		WSDropped:     s.counters.wsDropped.Load(),
		QUICConns:     s.counters.quicOpen.Load(),
		QUICRetries:   s.counters.quicRetries.Load(),
		QUICResets:    s.counters.quicResets.Load(),
		QUICDropped:   s.counters.quicDropped.Load(),
	}
	if s.workers != nil {
		st.Workers, st.Queued = s.workers.stats()
	}
	return st
}

// PublishExpvar publishes the server's Stats under name in expvar
// (/debug/vars). It panics if name is already published, as expvar does.
func (s *Server) PublishExpvar(name string) {
	expvar.Publish(name, expvar.Func(func() any { return s.Stats() }))
}

// ListenAndServe listens on the TCP address addr and serves until Shutdown
// or Close, returning ErrServerClosed then.
func (s *Server) ListenAndServe(addr string) error {
	if err := s.Listen(addr); err != nil {
		return err
	}
	return s.Serve()
}

// Listen binds addr (host:port; port 0 picks one) without serving yet, so
// that Addr is known before Serve starts.
func (s *Server) Listen(addr string) error {
	return s.listen(func() (*engine, error) { return newEngine(s, addr) })
}

// listen is Listen and ListenFiles: it checks the Handler and Config,
// prepares TLS, and sets up the engine open makes.
func (s *Server) listen(open func() (*engine, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listened {
		return errors.New("server: Listen called twice")
	}
	if s.Handler == nil {
		return errors.New("server: no Handler")
	}
	s.cfg = s.Config.withDefaults()
	if _, ok := s.Handler.(*httpAdapter); ok && s.cfg.Mode == Inline {
		return errors.New("server: an http.Handler needs Auto or Pooled mode, it may block")
	}
	s.streamBodies = s.cfg.Mode != Inline
	if s.filesTLS != nil {
		s.cfg.TLS = s.filesTLS
	}
	tlsConf, err := prepareTLS(s.cfg.TLS, s.offersH2())
	if err != nil {
		return err
	}
	s.tlsConf = tlsConf
	if s.cfg.HTTP3 && tlsConf == nil {
		return errors.New("server: HTTP3 needs TLS")
	}
	eng, err := open()
	if err != nil {
		return err
	}
	s.eng = eng
	s.date = newDateClock()
	s.workers = newWorkerPool(s.cfg.MaxWorkers)
	s.done = make(chan struct{})
	s.listened = true
	return nil
}

// Addr returns the address the server listens on, once Listen succeeded.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil {
		return nil
	}
	return s.eng.addr
}

// Serve runs the event loops until Shutdown or Close and returns
// ErrServerClosed then, or the error that stopped the loops.
func (s *Server) Serve() error {
	s.mu.Lock()
	eng := s.eng
	if s.closedEarly {
		s.mu.Unlock()
		return ErrServerClosed // Shutdown or Close came first, as net/http has it
	}
	if eng == nil || s.serving {
		s.mu.Unlock()
		return errors.New("server: Serve needs one Listen first, and runs once")
	}
	s.serving = true
	s.mu.Unlock()
	err := eng.run()
	s.date.close()
	s.workers.close()
	close(s.done)
	if err == nil {
		err = ErrServerClosed
	}
	return err
}

// Shutdown stops accepting, closes idle connections, lets requests in
// flight finish (closing their connections after the response), and
// returns when every connection is closed, or with ctx's error when ctx
// ends first (then it closes what is left).
func (s *Server) Shutdown(ctx context.Context) error {
	eng := s.engineOrDiscard()
	if eng == nil {
		return nil
	}
	s.closeAllAt.Store(time.Now().Add(max(s.cfg.DrainSpread, 0)).UnixNano())
	s.shutting.Store(true)
	eng.beginShutdown()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if eng.drained() && s.counters.open.Load() == 0 && s.counters.inflight.Load() == 0 {
			eng.stop()
			<-s.done
			return nil
		}
		select {
		case <-ctx.Done():
			eng.stop()
			<-s.done
			return ctx.Err()
		case <-tick.C:
			eng.closeIdle()
		}
	}
}

// drainingAll reports whether Shutdown's spread is over (closeAllAt):
// every HTTP/1.1 connection closes after its response.
func (s *Server) drainingAll() bool {
	return s.shutting.Load() && time.Now().UnixNano() >= s.closeAllAt.Load()
}

// Close closes the listeners and every connection at once.
func (s *Server) Close() error {
	eng := s.engineOrDiscard()
	if eng == nil {
		return nil
	}
	s.shutting.Store(true)
	eng.stop()
	<-s.done
	return nil
}

// engineOrDiscard returns the running engine, or nil after releasing the
// listeners of one that Listen set up but Serve never ran.
func (s *Server) engineOrDiscard() *engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil {
		return nil
	}
	if !s.serving {
		s.closedEarly = true
		s.eng.discard()
		s.date.close()
		s.eng = nil
		return nil
	}
	return s.eng
}
