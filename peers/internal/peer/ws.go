package peer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// The WebSocket peers answer the two paths gust serve does: WSEchoPath
// echoes every message back as it came (text as text, binary as binary);
// WSBroadcastPath sends every message to all connections on that path,
// the sender included.
const (
	WSEchoPath      = "/ws"
	WSBroadcastPath = "/ws/broadcast"
)

// WSMaxMessage bounds a received message in every WebSocket peer, as
// gust serve's default does (1 MiB); the libraries' own defaults differ
// (coder/websocket 32 KiB, gorilla none, nbio 4 MiB).
const WSMaxMessage = 1 << 20

// WSOutbox is how many broadcast messages a peer with a writer goroutine
// per connection queues for one receiver before it drops the next ones
// for that receiver (the connection stays open), as gust drops a message
// for a client past its MaxBuffered.
const WSOutbox = 256

// WSRoutes returns a handler that gives upgrade requests (an Upgrade
// header) on WSEchoPath to echo and on WSBroadcastPath to broadcast, and
// every other request to next, as gust serve routes its own. The upgrade
// itself is checked by each library.
func WSRoutes(echo, broadcast, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			switch r.URL.Path {
			case WSEchoPath:
				echo.ServeHTTP(w, r)
				return
			case WSBroadcastPath:
				broadcast.ServeHTTP(w, r)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// HTTPServer returns the net/http server of a peer built on net/http:
// h over HTTP/1.1 alone (WebSocket libraries on net/http take the
// connection by Hijack, which HTTP/2 has not), with the crypto/tls
// configuration the flags ask for (ALPN http/1.1), if any.
func HTTPServer(name string, f Flags, h http.Handler) (*http.Server, error) {
	cfg, err := TLSConfig(name, f, "http/1.1")
	if err != nil {
		return nil, err
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	return &http.Server{Handler: h, TLSConfig: cfg, Protocols: &protos}, nil
}

// Serve serves srv on ln, over TLS when srv has a TLS configuration.
func Serve(srv *http.Server, ln net.Listener) error {
	if srv.TLSConfig != nil {
		return srv.ServeTLS(ln, "", "")
	}
	return srv.Serve(ln)
}

// ServeHTTP is the run of a peer built on net/http: it serves h
// (HTTPServer) on f.Addr until SIGINT or SIGTERM (Wait).
func ServeHTTP(name string, f Flags, h http.Handler) error {
	srv, err := HTTPServer(name, f, h)
	if err != nil {
		return err
	}
	ln, dbg, err := Listen(name, f)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- Serve(srv, ln) }()
	// Shutdown does not wait for hijacked connections: the WebSockets end
	// with the process.
	err = Wait(name, f.URL(ln.Addr().String()), errc, func(ctx context.Context) error {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			return err
		}
		return nil
	}, dbg)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Hub is a broadcast set of connections for the peers whose libraries
// want one writer per connection: each member has an outbox of M (a
// message as its library sends it) that the member's own writer
// goroutine drains. The zero Hub is empty and ready.
type Hub[M any] struct {
	mu      sync.RWMutex
	members map[*Member[M]]struct{}
}

// Member is one connection of a Hub.
type Member[M any] struct {
	// Out is the member's outbox, closed by Leave: its writer ranges over it.
	Out chan M
}

// Join adds a member with an outbox of WSOutbox messages.
func (h *Hub[M]) Join() *Member[M] {
	m := &Member[M]{Out: make(chan M, WSOutbox)}
	h.mu.Lock()
	if h.members == nil {
		h.members = map[*Member[M]]struct{}{}
	}
	h.members[m] = struct{}{}
	h.mu.Unlock()
	return m
}

// Leave removes m and closes its outbox; a second Leave does nothing.
func (h *Hub[M]) Leave(m *Member[M]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.members[m]; ok {
		delete(h.members, m)
		close(m.Out)
	}
}

// Broadcast queues msg in every member's outbox without waiting: a
// member whose outbox is full loses msg. It returns how many queued it.
func (h *Hub[M]) Broadcast(msg M) int {
	// The read lock keeps Leave from closing an outbox mid-send; senders
	// broadcast side by side.
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for m := range h.members {
		select {
		case m.Out <- msg:
			n++
		default:
		}
	}
	return n
}

// Len returns how many members h has.
func (h *Hub[M]) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.members)
}
