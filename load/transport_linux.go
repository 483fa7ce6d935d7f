//go:build linux

package load

import "github.com/gust-http/gust/internal/transport"

// plainTransport is the transport of a plain TCP connection.
type plainTransport = transport.Plain
