package peer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// TLSFlags are the TLS flags every peer takes: a certificate and key from
// files, or a self-signed certificate made at start.
type TLSFlags struct {
	CertFile   string // -tls-cert: PEM certificate chain
	KeyFile    string // -tls-key: PEM private key
	SelfSigned bool   // -tls-self-signed: an ECDSA P-256 certificate made at start
	// NoResume (-tls-no-resume) refuses session resumption (no tickets, TLS
	// 1.2 or 1.3), so that every new connection is a full handshake whatever
	// the client does: wrk, for one, always resumes.
	NoResume bool
}

// On reports whether the peer serves TLS.
func (t TLSFlags) On() bool { return t.SelfSigned || t.CertFile != "" || t.KeyFile != "" }

// check refuses half-given or conflicting TLS flags, in one line.
func (t TLSFlags) check() error {
	switch {
	case t.SelfSigned && (t.CertFile != "" || t.KeyFile != ""):
		return errors.New("give -tls-self-signed or -tls-cert and -tls-key, not both")
	case t.NoResume && !t.SelfSigned && t.CertFile == "":
		return errors.New("-tls-no-resume needs TLS: give -tls-self-signed or -tls-cert and -tls-key")
	case (t.CertFile == "") != (t.KeyFile == ""):
		return errors.New("give both -tls-cert FILE and -tls-key FILE")
	}
	return nil
}

// KeyPair returns the PEM certificate and key the flags name: read from
// the files, or made by SelfSigned. Each server's TLS stack parses them
// (nbio's fork of crypto/tls has a Certificate type of its own).
func (t TLSFlags) KeyPair() (certPEM, keyPEM []byte, err error) {
	if t.SelfSigned {
		return SelfSigned(time.Now())
	}
	if certPEM, err = os.ReadFile(t.CertFile); err != nil {
		return nil, nil, fmt.Errorf("-tls-cert: %w", err)
	}
	if keyPEM, err = os.ReadFile(t.KeyFile); err != nil {
		return nil, nil, fmt.Errorf("-tls-key: %w", err)
	}
	return certPEM, keyPEM, nil
}

// SelfSigned makes a self-signed ECDSA P-256 certificate valid from an
// hour before now for a year, for localhost, 127.0.0.1 and ::1, and returns
// it and its key in PEM.
func SelfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "gust peer (self-signed)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// Fingerprint returns the SHA-256 of the first certificate in certPEM, in
// hex, as the peers print it at start; "" if there is none.
func Fingerprint(certPEM []byte) string {
	b, _ := pem.Decode(certPEM)
	if b == nil {
		return ""
	}
	return fmt.Sprintf("%X", sha256.Sum256(b.Bytes))
}

// KeyPairPEM returns the certificate and key f.TLS names (TLSFlags.KeyPair)
// and, for a self-signed one, prints its SHA-256 fingerprint on stderr.
func KeyPairPEM(name string, f Flags) (certPEM, keyPEM []byte, err error) {
	certPEM, keyPEM, err = f.TLS.KeyPair()
	if err == nil && f.TLS.SelfSigned {
		fmt.Fprintf(os.Stderr, "peers/%s: self-signed certificate, SHA-256 %s\n", name, Fingerprint(certPEM))
	}
	return certPEM, keyPEM, err
}

// TLSConfig returns the crypto/tls configuration f.TLS asks for, offering
// alpn by ALPN, or nil when the peer serves plain HTTP (see KeyPairPEM).
func TLSConfig(name string, f Flags, alpn ...string) (*tls.Config, error) {
	if !f.TLS.On() {
		return nil, nil
	}
	certPEM, keyPEM, err := KeyPairPEM(name, f)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: alpn, SessionTicketsDisabled: f.TLS.NoResume}, nil
}
