package main

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/internal/transport"
)

// serveTLSFlags are gust serve's HTTPS settings.
type serveTLSFlags struct {
	// Cert and Key are PEM files: a certificate chain and its private key.
	Cert, Key string
	// SelfSigned makes an ECDSA P-256 certificate at start.
	SelfSigned bool
	// NoResume refuses session resumption (no session tickets), so that
	// every connection does a full handshake (wrk always resumes).
	NoResume bool
	// Max caps the TLS version served: "1.2" or "1.3"; "" is crypto/tls's
	// default (1.3). With 1.2, a resumed handshake does no key exchange,
	// which TLS 1.3's in crypto/tls always does (psk_dhe_ke).
	Max string
}

// on reports whether gust serve speaks HTTPS.
func (f serveTLSFlags) on() bool { return f.SelfSigned || f.Cert != "" || f.Key != "" }

// scheme is the URL scheme of the start-up line.
func (f serveTLSFlags) scheme() string {
	if f.on() {
		return "https"
	}
	return "http"
}

func addTLSFlags(f *pflag.FlagSet, t *serveTLSFlags) {
	f.StringVar(&t.Cert, "tls-cert", "", "serve HTTPS with this PEM certificate chain (with --tls-key)")
	f.StringVar(&t.Key, "tls-key", "", "the PEM private key of --tls-cert")
	f.BoolVar(&t.SelfSigned, "tls-self-signed", false, "serve HTTPS with an ECDSA P-256 certificate made at start (its SHA-256 fingerprint is printed; kept across SIGUSR2 upgrades)")
	f.BoolVar(&t.NoResume, "tls-no-resume", false, "with HTTPS, refuse session resumption: every connection does a full handshake")
	f.StringVar(&t.Max, "tls-max", "", "with HTTPS, the highest TLS version served: 1.2 or 1.3 (default 1.3)")
}

// maxVersion is --tls-max as a crypto/tls version; 0 is the default.
func (f serveTLSFlags) maxVersion() (uint16, error) {
	switch f.Max {
	case "":
		return 0, nil
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("serve: --tls-max %q: want 1.2 or 1.3", f.Max)
}

// check refuses flag combinations that cannot work.
func (f serveTLSFlags) check() error {
	switch {
	case f.SelfSigned && (f.Cert != "" || f.Key != ""):
		return errors.New("serve: --tls-self-signed makes its own certificate; drop it or --tls-cert/--tls-key")
	case (f.Cert == "") != (f.Key == ""):
		return errors.New("serve: --tls-cert and --tls-key go together: give both files")
	case f.NoResume && !f.on():
		return errors.New("serve: --tls-no-resume needs HTTPS: add --tls-self-signed or --tls-cert and --tls-key")
	case f.Max != "" && !f.on():
		return errors.New("serve: --tls-max needs HTTPS: add --tls-self-signed or --tls-cert and --tls-key")
	}
	_, err := f.maxVersion()
	return err
}

// config returns the server's tls.Config and the start-up
// line that describes its certificate; nil without HTTPS. host is --addr's
// host, added to a self-signed certificate's names.
func (f serveTLSFlags) config(host string) (*tls.Config, string, *certReloader, error) {
	if !f.on() {
		return nil, "", nil, nil
	}
	var cert tls.Certificate
	var note string
	var reloader *certReloader
	if f.SelfSigned {
		hosts := selfSignedHosts(host)
		c, fp, err := selfSigned(hosts)
		if err != nil {
			return nil, "", nil, fmt.Errorf("serve: --tls-self-signed: %w", err)
		}
		cert = c
		note = fmt.Sprintf("gust serve: self-signed ECDSA P-256 certificate for %s; SHA-256 fingerprint %s", strings.Join(hosts, ", "), fp)
	} else {
		r, err := newCertReloader(f.Cert, f.Key)
		if err != nil {
			return nil, "", nil, fmt.Errorf("serve: %w", err)
		}
		reloader = r
		if leaf, err := x509.ParseCertificate(r.cur.Load().Certificate[0]); err == nil {
			note = fmt.Sprintf("gust serve: certificate %s for %s; SHA-256 fingerprint %s", f.Cert, leafNames(leaf), transport.Fingerprint(leaf.Raw))
		}
	}
	if f.NoResume {
		note += "; session resumption refused"
	}
	maxVersion, err := f.maxVersion()
	if err != nil {
		return nil, "", nil, err
	}
	// No NextProtos: gust/server's ALPN offers http/1.1, and h2 when it
	// serves HTTP/2; runNetHTTP names http/1.1 for net/http.
	cfg := &tls.Config{
		SessionTicketsDisabled: f.NoResume,
		MaxVersion:             maxVersion,
	}
	if reloader != nil {
		cfg.GetCertificate = reloader.get // SIGHUP reads the files again
	} else {
		cfg.Certificates = []tls.Certificate{cert}
	}
	if k := os.Getenv(ticketKeyEnv); k != "" && !f.NoResume {
		b, err := hex.DecodeString(k)
		if err != nil || len(b) != 32 {
			return nil, "", nil, fmt.Errorf("serve: %s must be 64 hex digits", ticketKeyEnv)
		}
		cfg.SetSessionTicketKeys([][32]byte{[32]byte(b)})
	}
	return cfg, note, reloader, nil
}

// ticketKeyEnv holds the session ticket key the processes of --workers,
// and the successive processes of SIGUSR2 upgrades, share (hex), so that
// a session one of them started resumes on another.
const ticketKeyEnv = "GUST_SERVE_TLS_TICKET_KEY"

// shareTicketKey gives the processes this one starts (workers, upgrades)
// one session ticket key, through their environment.
func shareTicketKey() error {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return fmt.Errorf("serve: session ticket key: %w", err)
	}
	return os.Setenv(ticketKeyEnv, hex.EncodeToString(key[:]))
}

// sharedSecret returns the key the processes of --workers and of
// upgrades share (ticketKeyEnv), nil for a process alone.
func sharedSecret() []byte {
	b, err := hex.DecodeString(os.Getenv(ticketKeyEnv))
	if err != nil || len(b) != 32 {
		return nil
	}
	return b
}

// selfSignedEnv holds the certificate and key of --tls-self-signed (PEM)
// that the successive processes of SIGUSR2 upgrades serve, so that the
// fingerprint printed at start holds after an upgrade, and the new
// process makes no certificate of its own.
const selfSignedEnv = "GUST_SERVE_TLS_SELF_SIGNED"

// shareSelfSigned makes the certificate of --tls-self-signed for host,
// and gives it to this process and those it starts (upgrades) through
// their environment.
func shareSelfSigned(host string) error {
	cert, _, err := transport.SelfSigned(selfSignedHosts(host), 0)
	if err != nil {
		return fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	both := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})...)
	return os.Setenv(selfSignedEnv, string(both))
}

// selfSigned returns the certificate selfSignedEnv holds, or else a new
// one for hosts, and its SHA-256 fingerprint.
func selfSigned(hosts []string) (tls.Certificate, string, error) {
	v := os.Getenv(selfSignedEnv)
	if v == "" {
		return transport.SelfSigned(hosts, 0)
	}
	cert, err := tls.X509KeyPair([]byte(v), []byte(v))
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("%s: %w", selfSignedEnv, err)
	}
	return cert, transport.Fingerprint(cert.Certificate[0]), nil
}

// selfSignedHosts names a self-signed certificate: localhost and the
// loopback addresses, and host when it is a specific one.
func selfSignedHosts(host string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		for _, h := range hosts {
			if h == host {
				return hosts
			}
		}
		hosts = append(hosts, host)
	}
	return hosts
}

// leafNames lists a certificate's DNS names and IP addresses.
func leafNames(c *x509.Certificate) string {
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return c.Subject.CommonName
	}
	return strings.Join(names, ", ")
}

// selfSignedForWorkers makes the certificate of --tls-self-signed once,
// in the parent of --workers, writes it to dir as PEM files, and returns
// the workers' arguments with --tls-cert and --tls-key in place of
// --tls-self-signed (so that every worker serves the same certificate),
// and the start-up line naming its fingerprint.
func selfSignedForWorkers(args []string, host, dir string) ([]string, string, error) {
	hosts := selfSignedHosts(host)
	cert, fp, err := transport.SelfSigned(hosts, 0)
	if err != nil {
		return nil, "", fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, "", fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		return nil, "", fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600); err != nil {
		return nil, "", fmt.Errorf("serve: --tls-self-signed: %w", err)
	}
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--tls-self-signed") {
			out = append(out, "--tls-cert="+certFile, "--tls-key="+keyFile)
			continue
		}
		out = append(out, a)
	}
	note := fmt.Sprintf("gust serve: self-signed ECDSA P-256 certificate for %s, shared by the workers; SHA-256 fingerprint %s", strings.Join(hosts, ", "), fp)
	return out, note, nil
}
