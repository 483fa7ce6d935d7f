package load

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// tlsStats is one loop's record of its handshakes, written by the loop
// only. Handshakes count from the start of the run (the ramp is when most
// are made, as for connects); errors only while measuring, as every error.
type tlsStats struct {
	full, resumed int64
	versions      map[uint16]int64
	suites        map[uint16]int64
	alpn          map[string]int64
	errors        map[string]int64
	handshake     *hdrhistogram.Histogram
}

func newTLSStats() *tlsStats {
	return &tlsStats{
		versions:  make(map[uint16]int64),
		suites:    make(map[uint16]int64),
		alpn:      make(map[string]int64),
		errors:    make(map[string]int64),
		handshake: result.NewHistogram(),
	}
}

// handshook records a successful handshake of took ns.
func (s *tlsStats) handshook(st *tls.ConnectionState, took int64) {
	if st.DidResume {
		s.resumed++
	} else {
		s.full++
	}
	s.versions[st.Version]++
	s.suites[st.CipherSuite]++
	alpn := st.NegotiatedProtocol
	if alpn == "" {
		alpn = "none"
	}
	s.alpn[alpn]++
	s.handshake.RecordValue(usec(took))
}

// result returns s as the run's result.TLS; nil s (a plain run) gives nil.
func (s *tlsStats) result() *result.TLS {
	if s == nil {
		return nil
	}
	r := result.NewTLS()
	r.Full, r.Resumed = s.full, s.resumed
	for v, n := range s.versions {
		r.Versions[tls.VersionName(v)] += n
	}
	for c, n := range s.suites {
		r.CipherSuites[tls.CipherSuiteName(c)] += n
	}
	for k, n := range s.alpn {
		r.ALPN[k] += n
	}
	for k, n := range s.errors {
		r.Errors[k] += n
	}
	r.Handshake = s.handshake
	return r
}

// classifyHandshake names why a handshake failed, as result.TLS.Errors
// counts it.
func classifyHandshake(err error) string {
	var inv x509.CertificateInvalidError
	var host x509.HostnameError
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	var op *net.OpError
	switch {
	case errors.As(err, &inv) && inv.Reason == x509.Expired:
		return result.TLSErrExpired
	case errors.As(err, &host):
		return result.TLSErrWrongName
	case errors.As(err, &unknown):
		return result.TLSErrUnknownAuthority
	case errors.As(err, &inv), errors.As(err, &verify):
		return result.TLSErrCertificate
	case errors.As(err, &op) && op.Op == "remote error":
		// crypto/tls returns the peer's alert as a net.OpError of this Op.
		if strings.Contains(op.Err.Error(), "protocol version") {
			return result.TLSErrVersion
		}
		return result.TLSErrAlert
	case errors.Is(err, os.ErrDeadlineExceeded):
		return result.TLSErrTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return result.TLSErrClosed
	case strings.Contains(err.Error(), "unsupported protocol version"):
		return result.TLSErrVersion // crypto/tls refused the server's choice itself
	}
	return result.TLSErrOther
}
