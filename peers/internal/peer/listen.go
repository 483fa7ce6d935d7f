package peer

import (
	"context"
	"net"
)

// ListenFunc returns the function the peers listen with: net.Listen, or,
// when reusePort is set (-reuseport), one that sets SO_REUSEPORT before
// binding, so that several processes (or listeners) share one port and the
// kernel spreads new connections over them. Every peer listens through it
// (nbio as its engine's Config.Listen), fasthttp too rather than its
// reuseport package, which also turns on TCP_DEFER_ACCEPT and TCP Fast
// Open: the peers differ in their servers, not their sockets.
func ListenFunc(reusePort bool) func(network, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	if reusePort {
		lc.Control = setReusePort
	}
	return func(network, addr string) (net.Listener, error) {
		return lc.Listen(context.Background(), network, addr)
	}
}
