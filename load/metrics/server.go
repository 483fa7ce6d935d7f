package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where a Server serves the metrics.
const Path = "/metrics"

// Server serves an Exporter's metrics over HTTP on /metrics.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Listen binds addr (host:port; port 0 picks a free one) and serves e on
// it until Close. A bind failure is returned at once, before any load.
func Listen(addr string, e *Exporter) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(e); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s := &Server{
		ln:   ln,
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		// Serve returns ErrServerClosed after Close; nothing else is
		// expected of a listener we own.
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the address the Server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close keeps serving for linger (the final values, for a last scrape),
// or until ctx is done, then stops, letting scrapes in progress finish
// for up to a second.
func (s *Server) Close(ctx context.Context, linger time.Duration) error {
	if linger > 0 {
		t := time.NewTimer(linger)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}
