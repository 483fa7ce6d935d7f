package load

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strings"
)

// TLSConfig configures the handshakes of an https:// target. Its zero value
// is what a careful client does: the server's certificate verified against
// the system's roots for the server name, TLS 1.2 or 1.3, ALPN "http/1.1",
// sessions resumed when a connection is reopened.
type TLSConfig struct {
	// Insecure skips the verification of the server's certificate
	// (--insecure), for self-signed test targets.
	Insecure bool
	// RootCAs, if set, replaces the system's roots (--cacert).
	RootCAs *x509.CertPool
	// Certificates are the client certificates offered to a server that
	// asks for one (--cert, --key).
	Certificates []tls.Certificate
	// MinVersion is the lowest TLS version accepted (tls.VersionTLS12 or
	// tls.VersionTLS13); 0 means TLS 1.2.
	MinVersion uint16
	// MaxVersion is the highest TLS version offered; 0 means TLS 1.3.
	MaxVersion uint16
	// NoResume makes every handshake a full one (--no-tls-resume); by
	// default the run's connections share one session cache and a
	// reopened connection resumes.
	NoResume bool
	// NextProtos are the protocols offered by ALPN, in order of
	// preference; nil offers "http/1.1" ("h2" with Config.HTTP2, both
	// with Config.AutoProtocol). Each connection speaks what its server
	// picked: "h2" is HTTP/2, anything else HTTP/1.1 (see useProtocol).
	NextProtos []string
	// ServerName, if set, is the name sent by SNI and verified; by default
	// it is the Host header's host (-H Host:), else the URL's host.
	ServerName string
}

// DefaultNextProtos is what ALPN offers when TLSConfig.NextProtos is nil.
var DefaultNextProtos = []string{"http/1.1"}

// validate checks the versions asked for.
func (c *TLSConfig) validate() error {
	for _, v := range []uint16{c.MinVersion, c.MaxVersion} {
		if v != 0 && v != tls.VersionTLS12 && v != tls.VersionTLS13 {
			return fmt.Errorf("TLS version %#04x is not supported: use 1.2 or 1.3", v)
		}
	}
	if c.MinVersion != 0 && c.MaxVersion != 0 && c.MinVersion > c.MaxVersion {
		return fmt.Errorf("the lowest TLS version (%s) is above the highest (%s)",
			tls.VersionName(c.MinVersion), tls.VersionName(c.MaxVersion))
	}
	return nil
}

// clientConfig is the crypto/tls configuration every connection of a run
// shares, with one session cache for the run unless resumption is off.
func (c *TLSConfig) clientConfig(serverName string, conns int) *tls.Config {
	cfg := &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: c.Insecure,
		RootCAs:            c.RootCAs,
		Certificates:       c.Certificates,
		MinVersion:         c.MinVersion,
		MaxVersion:         c.MaxVersion,
		NextProtos:         c.NextProtos,
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if cfg.NextProtos == nil {
		cfg.NextProtos = DefaultNextProtos
	}
	if !c.NoResume {
		// One entry per connection keeps every connection's latest ticket.
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(max(conns, 64))
	}
	return cfg
}

// hostOnly strips the port from a Host header's value: "example.com:8443"
// is "example.com", "[::1]:8443" is "::1".
func hostOnly(hostPort string) string {
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		return h
	}
	return strings.Trim(hostPort, "[]")
}

// HandshakeError is Run's error when the start-up probe's TLS handshake
// fails: the certificate is refused (expired, unknown authority, wrong
// name), no version is shared, or the server is not speaking TLS. Its
// message is one line naming the reason (transport.VerifyErrorLine).
type HandshakeError struct {
	// Addr is the host:port the handshake was made with.
	Addr string
	// Reason is the one-line reason.
	Reason string
	// Err is crypto/tls's or the network's error.
	Err error
}

// Error returns "tls handshake with ADDR: REASON".
func (e *HandshakeError) Error() string {
	return fmt.Sprintf("tls handshake with %s: %s", e.Addr, e.Reason)
}

// Unwrap returns the underlying error.
func (e *HandshakeError) Unwrap() error { return e.Err }
