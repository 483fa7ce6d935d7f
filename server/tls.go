package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"

	"github.com/gust-http/gust/internal/transport"
)

// ListenAndServeTLS listens on the TCP address addr and serves HTTPS until
// Shutdown or Close, returning ErrServerClosed then. certFile and keyFile
// hold a PEM certificate chain and its private key; both may be empty when
// Config.TLS already holds a certificate (Certificates or GetCertificate).
// Config.TLS, if set, is cloned, never modified.
func (s *Server) ListenAndServeTLS(addr, certFile, keyFile string) error {
	cfg := s.Config.TLS
	if cfg == nil {
		cfg = &tls.Config{}
	} else {
		cfg = cfg.Clone()
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return fmt.Errorf("server: ListenAndServeTLS: %w", err)
		}
		cfg.Certificates = append(cfg.Certificates, cert)
	}
	s.mu.Lock()
	s.filesTLS = cfg
	s.mu.Unlock()
	return s.ListenAndServe(addr)
}

// alpnHTTP1 is the protocol every TLS connection of the server may choose
// by ALPN.
const alpnHTTP1 = "http/1.1"

// alpnH2 is HTTP/2's ALPN name: offered only when the server serves
// HTTP/2 over TLS (offersH2).
const alpnH2 = "h2"

// plainToTLS is what a client that sends plain HTTP to a TLS port reads
// before the server closes the connection: net/http's answer, word for word.
const plainToTLS = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"

// prepareTLS returns the tls.Config the server's connections use: a clone
// of cfg whose ALPN offers "h2" (if h2 says so) and "http/1.1", unless cfg
// names its own protocols. nil cfg means plain TCP.
func prepareTLS(cfg *tls.Config, h2 bool) (*tls.Config, error) {
	if cfg == nil {
		return nil, nil
	}
	if len(cfg.Certificates) == 0 && cfg.GetCertificate == nil && cfg.GetConfigForClient == nil {
		return nil, errors.New("server: Config.TLS has no certificate: set Certificates or GetCertificate, or use ListenAndServeTLS with a certificate and key file")
	}
	cfg = cfg.Clone()
	if len(cfg.NextProtos) == 0 {
		if h2 {
			cfg.NextProtos = []string{alpnH2, alpnHTTP1}
		} else {
			cfg.NextProtos = []string{alpnHTTP1}
		}
	} else if !h2 {
		cfg.NextProtos = slices.DeleteFunc(slices.Clone(cfg.NextProtos), func(p string) bool { return p == alpnH2 })
	}
	// A TLS 1.3 connection on an AES-GCM suite hands its records over to
	// gust after the handshake (internal/transport/tls13direct.go), unless
	// GUST_TLS_RECORDS=crypto/tls.
	return transport.PrepareServerConfig(cfg), nil
}

// TLS returns the state of the request's TLS connection (version, cipher
// suite, the protocol ALPN chose, the server name the client asked for,
// its certificates), or nil over plain TCP. It builds the state when
// called (one allocation): the native path costs nothing until it asks.
func (c *Ctx) TLS() *tls.ConnectionState {
	if p, ok := c.peer.(tlsPeer); ok {
		return p.connectionState()
	}
	return nil
}

// tlsPeer is implemented by connections that can report their TLS state,
// for the adapter's Request.TLS.
type tlsPeer interface {
	// connectionState returns the TLS state, or nil for a plain connection.
	connectionState() *tls.ConnectionState
}
