package main

import (
	"crypto/tls"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/load"
)

// tlsFlags are the TLS flags gust load and gust replay share, for https://
// targets.
type tlsFlags struct {
	insecure bool
	caCert   string
	cert     string
	key      string
	min      string
	noResume bool
}

// add registers the flags on fl.
func (f *tlsFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&f.insecure, "insecure", false, "https: do not verify the server's certificate (self-signed test targets)")
	fl.StringVar(&f.caCert, "cacert", "", "https: verify the server's certificate against the CA certificates (PEM) in this file instead of the system's")
	fl.StringVar(&f.cert, "cert", "", "https: client certificate (PEM) for servers that ask for one; needs --key")
	fl.StringVar(&f.key, "key", "", "https: the client certificate's private key (PEM)")
	fl.StringVar(&f.min, "tls-min", "1.2", "https: lowest TLS version accepted, 1.2 or 1.3")
	fl.BoolVar(&f.noResume, "no-tls-resume", false, "https: full handshakes only (by default reopened connections resume their sessions)")
}

// config turns the flags into a load.TLSConfig; serverName (from --host
// or -H Host:, "" for the URL's host) names the server for SNI.
func (f *tlsFlags) config(serverName string) (load.TLSConfig, error) {
	cfg := load.TLSConfig{Insecure: f.insecure, NoResume: f.noResume, ServerName: serverName}
	switch f.min {
	case "1.2", "":
		cfg.MinVersion = tls.VersionTLS12
	case "1.3":
		cfg.MinVersion = tls.VersionTLS13
	default:
		return cfg, fmt.Errorf("--tls-min must be 1.2 or 1.3, got %q", f.min)
	}
	if f.caCert != "" {
		if f.insecure {
			return cfg, fmt.Errorf("give either --cacert or --insecure, not both")
		}
		pool, err := transport.LoadCertPool(f.caCert)
		if err != nil {
			return cfg, err
		}
		cfg.RootCAs = pool
	}
	if f.cert != "" || f.key != "" {
		pair, err := transport.LoadKeyPair(f.cert, f.key)
		if err != nil {
			return cfg, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
