package main

import (
	"errors"
	"fmt"
)

// check validates the engine choices.
func (c *serveConfig) check() error {
	if err := c.TLS.check(); err != nil {
		return err
	}
	switch {
	case c.Engine != "gust" && c.Engine != "nethttp":
		return fmt.Errorf("serve: --engine must be gust or nethttp, got %q", c.Engine)
	case c.Mode != "auto" && c.Mode != "pooled" && c.Mode != "inline":
		return fmt.Errorf("serve: --mode must be auto, pooled or inline, got %q", c.Mode)
	case c.Handler.SlowPath != "" && c.Handler.Delay <= 0:
		return errors.New("serve: --slow-path needs a --delay for its requests, e.g. --slow-path /slow --delay 50ms")
	case c.Handler.Compute < 0:
		return fmt.Errorf("serve: --compute is %s; give a duration of 0 or more, e.g. 200us", c.Handler.Compute)
	case (c.WSDeflate || c.WSPing != 0) && c.Engine != "gust":
		return errors.New("serve: --ws-deflate and --ws-ping need --engine gust (the WebSocket paths are gust/server's)")
	case c.API != "native" && c.API != "nethttp":
		return fmt.Errorf("serve: --api must be native or nethttp, got %q", c.API)
	case c.MaxConns < 0 || c.ReadHeaderTimeout < 0 || c.Loops < 0:
		return errors.New("serve: --loops, --max-conns and --read-header-timeout must not be negative")
	case c.Acceptor != "" && c.Acceptor != "reuseport" && c.Acceptor != "one":
		return fmt.Errorf("serve: --acceptor must be reuseport or one, got %q", c.Acceptor)
	case c.HTTP3 && c.Engine != "gust":
		return errors.New("serve: --http3 needs --engine gust (net/http does not speak QUIC)")
	case c.HTTP3 && !c.TLS.on():
		return errors.New("serve: HTTP/3 always runs over TLS: add --tls-self-signed, or --tls-cert and --tls-key, to --http3")
	case c.GRPC && !c.HTTP2:
		return errors.New("serve: gRPC speaks HTTP/2: add --http2 to --grpc (h2c on plain TCP, h2 with --tls-*)")
	case c.GRPC && c.Engine == "gust" && c.Mode == "inline":
		return errors.New("serve: --grpc runs through the net/http adapter, which cannot run inline: use --mode auto or pooled")
	case c.MaxConns > 0 && c.Engine != "gust":
		return errors.New("serve: --max-conns needs --engine gust (net/http has no such limit)")
	case c.Engine == "gust" && c.Mode == "inline" && (c.Handler.Delay > 0 || c.API == "nethttp"):
		return errors.New("serve: --mode inline runs handlers on the event loop; it cannot --delay or serve --api nethttp, use --mode auto or pooled")
	}
	return nil
}
