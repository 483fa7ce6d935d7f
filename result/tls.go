package result

import (
	"github.com/HdrHistogram/hdrhistogram-go"
)

// TLS is what a run over TLS (an https:// target) saw of its handshakes.
// Result.TLS is nil for a plain http:// run, so that nothing of it shows in
// that run's reports.
//
// Handshakes count from the start of the run, ramp included, as connects
// do: the ramp is when most keep-alive connections are made. Errors count
// while measuring, as Result.Errors does: every failed handshake counted
// here is also one connect_error there.
type TLS struct {
	// Versions counts successful handshakes per TLS version, by the name
	// crypto/tls gives it ("TLS 1.3").
	Versions map[string]int64
	// CipherSuites counts successful handshakes per cipher suite, by its
	// IANA name ("TLS_AES_128_GCM_SHA256").
	CipherSuites map[string]int64
	// ALPN counts successful handshakes per protocol chosen by ALPN
	// ("http/1.1"); "none" when the server chose none.
	ALPN map[string]int64
	// Full counts handshakes that did not resume a session.
	Full int64
	// Resumed counts handshakes that resumed an earlier session (a ticket).
	Resumed int64
	// Errors counts failed handshakes per class (see the TLSError
	// constants).
	Errors map[string]int64
	// Handshake holds the times of successful handshakes, in microseconds,
	// from the end of the TCP connect to the end of the handshake.
	Handshake *hdrhistogram.Histogram
}

// The classes of TLS.Errors: why a handshake failed.
const (
	TLSErrExpired          = "expired"           // the certificate expired or is not valid yet
	TLSErrUnknownAuthority = "unknown_authority" // signed by an authority not trusted (self-signed, say)
	TLSErrWrongName        = "wrong_name"        // not valid for the server name asked for
	TLSErrCertificate      = "bad_certificate"   // any other verification failure
	TLSErrVersion          = "version"           // no TLS version both sides accept
	TLSErrAlert            = "alert"             // the server refused with another alert
	TLSErrTimeout          = "timeout"           // no handshake within the run's timeout
	TLSErrClosed           = "closed"            // the server closed or reset the connection
	TLSErrOther            = "other"             // anything else
)

// NewTLS returns an empty TLS record with its maps and histogram made.
func NewTLS() *TLS {
	return &TLS{
		Versions:     make(map[string]int64),
		CipherSuites: make(map[string]int64),
		ALPN:         make(map[string]int64),
		Errors:       make(map[string]int64),
		Handshake:    NewHistogram(),
	}
}

// Handshakes returns the successful handshakes, full and resumed.
func (t *TLS) Handshakes() int64 { return t.Full + t.Resumed }

// ErrorCount returns the failed handshakes of every class.
func (t *TLS) ErrorCount() int64 {
	var n int64
	for _, v := range t.Errors {
		n += v
	}
	return n
}

// Add adds r's counts and handshake histogram to t, whose maps and
// histogram must be made (NewTLS).
func (t *TLS) Add(r *TLS) {
	t.Full += r.Full
	t.Resumed += r.Resumed
	for _, m := range [][2]map[string]int64{
		{t.Versions, r.Versions}, {t.CipherSuites, r.CipherSuites}, {t.ALPN, r.ALPN}, {t.Errors, r.Errors},
	} {
		for k, n := range m[1] {
			m[0][k] += n
		}
	}
	if r.Handshake != nil {
		t.Handshake.Merge(r.Handshake)
	}
}

// addTLS adds r's TLS record to out's, making out's on first use, so that
// a run's or a merge's TLS is nil unless one of its parts used TLS.
func (out *Result) addTLS(r *Result) {
	if r.TLS == nil {
		return
	}
	if out.TLS == nil {
		out.TLS = NewTLS()
		if r.TLS.Handshake != nil && out.Latency != nil {
			out.TLS.Handshake = newLike(out.Latency)
		}
	}
	out.TLS.Add(r.TLS)
}
