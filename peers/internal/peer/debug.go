package peer

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/gust-http/gust/internal/hello"
)

// DebugServer is a running debug listener: hello.DebugHandler's
// /debug/vars and /debug/pprof/, the endpoints gust bench samples.
type DebugServer struct {
	srv *http.Server
	ln  net.Listener
}

// StartDebug listens on addr and serves the debug endpoints in the
// background until Shutdown.
func StartDebug(addr string) (*DebugServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on -debug-addr %q: %w", addr, err)
	}
	s := &DebugServer{srv: &http.Server{Handler: hello.DebugHandler()}, ln: ln}
	// The debug listener is best effort: after Shutdown, Serve only returns
	// http.ErrServerClosed, and an earlier accept failure must not stop the peer.
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the debug listener is bound to.
func (s *DebugServer) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops the debug listener, waiting for requests in flight until
// ctx is done; a nil DebugServer has nothing to stop.
func (s *DebugServer) Shutdown(ctx context.Context) error {
	if s == nil {
		return nil
	}
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
		return fmt.Errorf("debug listener shutdown: %w", err)
	}
	return nil
}
