package main

import (
	"fmt"

	"github.com/lesismal/llib/std/crypto/tls"
	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/peers/internal/peer"
)

// configure sets conf to serve f.Addr, over TLS when the flags ask for it.
//
// nbio serves TLS its own way: nbhttp takes a *tls.Config of
// github.com/lesismal/llib/std/crypto/tls, a fork of crypto/tls whose
// connections are fed bytes by the event loop (non-blocking handshakes and
// records, no goroutine per connection), and listens on Config.AddrsTLS
// instead of Config.Addrs. The certificate is parsed by the fork; ALPN
// offers http/1.1 (nbhttp has no HTTP/2).
func configure(conf *nbhttp.Config, f peer.Flags) error {
	if !f.TLS.On() {
		conf.Addrs = []string{f.Addr}
		return nil
	}
	certPEM, keyPEM, err := peer.KeyPairPEM("nbio", f)
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	conf.AddrsTLS = []string{f.Addr}
	conf.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"},
		SessionTicketsDisabled: f.TLS.NoResume}
	return nil
}
