// Package debugsrv is the debug listener every peer shares: /debug/vars with
// an expvar "goroutines", and /debug/pprof/, on a mux of its own so that no
// peer depends on http.DefaultServeMux.
package debugsrv

import (
	"context"
	"expvar"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"sync"
)

// publishGoroutines registers the expvar "goroutines" once per process:
// expvar.Publish panics on a second registration of the same name.
var publishGoroutines = sync.OnceFunc(func() {
	expvar.Publish("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
})

// Handler returns a new mux serving /debug/vars and /debug/pprof/.
func Handler() http.Handler {
	publishGoroutines()
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// Server is a running debug listener.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Start listens on addr and serves Handler in the background until Shutdown.
func Start(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on -debug-addr %q: %w", addr, err)
	}
	s := &Server{srv: &http.Server{Handler: Handler()}, ln: ln}
	// The debug listener is best effort: after Shutdown, Serve only returns
	// http.ErrServerClosed, and an earlier accept failure must not stop the peer.
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the debug listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops the debug listener, waiting for requests in flight until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
		return fmt.Errorf("debug listener shutdown: %w", err)
	}
	return nil
}
