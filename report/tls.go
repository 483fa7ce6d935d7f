package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// TLSStats is Summary.TLS, a run's TLS handshakes (result.TLS); it is left
// out for a plain http:// run, whose document is unchanged by it.
type TLSStats struct {
	// Versions counts successful handshakes per TLS version ("TLS 1.3").
	Versions map[string]int64 `json:"versions"`
	// CipherSuites counts successful handshakes per cipher suite.
	CipherSuites map[string]int64 `json:"cipher_suites"`
	// ALPN counts successful handshakes per protocol ALPN chose ("none"
	// when the server chose none).
	ALPN map[string]int64 `json:"alpn"`
	// Full counts handshakes that did not resume a session.
	Full int64 `json:"full"`
	// Resumed counts handshakes that resumed one.
	Resumed int64 `json:"resumed"`
	// Errors counts failed handshakes per class (result.TLSErrExpired, ...);
	// each is also one connect_error of Summary.Errors.
	Errors map[string]int64 `json:"errors"`
	// ErrorTotal counts failed handshakes of every class.
	ErrorTotal int64 `json:"error_total"`
	// Handshake describes the handshake times, in microseconds from the
	// end of the TCP connect; nil when none succeeded.
	Handshake *Stats `json:"handshake_us,omitempty"`
	// HandshakeHdr is the handshake-time histogram, encoded as
	// Summary.LatencyHdr is, so that gust merge adds it exactly.
	HandshakeHdr string `json:"handshake_hdr"`
}

// newTLSStats describes t; nil gives nil.
func newTLSStats(t *result.TLS) *TLSStats {
	if t == nil {
		return nil
	}
	h := orEmpty(t.Handshake)
	s := &TLSStats{
		Versions:     orEmptyMap(t.Versions),
		CipherSuites: orEmptyMap(t.CipherSuites),
		ALPN:         orEmptyMap(t.ALPN),
		Full:         t.Full,
		Resumed:      t.Resumed,
		Errors:       orEmptyMap(t.Errors),
		ErrorTotal:   t.ErrorCount(),
		HandshakeHdr: encode(h),
	}
	if h.TotalCount() > 0 {
		st := newStats(h)
		s.Handshake = &st
	}
	return s
}

func orEmptyMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// tlsResult rebuilds result.TLS from s, its histogram with like's settings
// when empty; nil s gives nil.
func tlsResult(s *TLSStats, like *hdrhistogram.Histogram) (*result.TLS, error) {
	if s == nil {
		return nil, nil
	}
	if s.HandshakeHdr == "" {
		return nil, errors.New("a TLS result without its handshake histogram (tls.handshake_hdr)")
	}
	t := result.NewTLS()
	t.Full, t.Resumed = s.Full, s.Resumed
	for _, m := range [][2]map[string]int64{
		{t.Versions, s.Versions}, {t.CipherSuites, s.CipherSuites}, {t.ALPN, s.ALPN}, {t.Errors, s.Errors},
	} {
		for k, n := range m[1] {
			m[0][k] = n
		}
	}
	h, err := decodeHistogram("tls.handshake_hdr", s.HandshakeHdr, like)
	if err != nil {
		return nil, err
	}
	if n := h.TotalCount(); n != t.Handshakes() {
		return nil, fmt.Errorf("tls.handshake_hdr holds %d values but full and resumed add up to %d: the result was changed or cut", n, t.Handshakes())
	}
	t.Handshake = h
	return t, nil
}

// tlsFacts describe a TLS run's handshakes for Text and HTML, after the
// connect times: what was negotiated, handshake times with full and
// resumed counts, and failed handshakes by class when there were any.
// A plain run has none.
func tlsFacts(t *result.TLS) []fact {
	if t == nil {
		return nil
	}
	seen := strings.Join(nonEmpty(counted(t.Versions), counted(t.CipherSuites), "ALPN "+counted(t.ALPN)), ", ")
	if t.Handshakes() == 0 {
		seen = "no handshake succeeded"
	}
	counts := fmt.Sprintf("%s full, %s resumed", formatCount(t.Full), formatCount(t.Resumed))
	hs := counts
	if h := orEmpty(t.Handshake); h.TotalCount() > 0 {
		s := newStats(h)
		hs = fmt.Sprintf("p50 %s, p99 %s, max %s (%s)",
			formatMicros(float64(s.P50)), formatMicros(float64(s.P99)), formatMicros(float64(s.Max)), counts)
	}
	facts := []fact{{"TLS", seen}, {"Handshakes", hs}}
	if t.ErrorCount() > 0 {
		facts = append(facts, fact{"TLS errors", countedAll(t.Errors)})
	}
	return facts
}

// counted lists a map's names, most frequent first: "TLS 1.3" when there
// is one, "TLS 1.3: 90, TLS 1.2: 10" when there are several.
func counted(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for k, n := range m {
		if n != 0 {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(names) == 1 {
		return names[0]
	}
	return withCounts(names, m)
}

// countedAll lists every name with its count, most frequent first:
// "expired: 3, timeout: 1".
func countedAll(m map[string]int64) string {
	one := counted(m)
	if len(m) == 1 && one != "" {
		return fmt.Sprintf("%s: %s", one, formatCount(m[one]))
	}
	return one
}

// withCounts joins names with their counts in m.
func withCounts(names []string, m map[string]int64) string {
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s: %s", k, formatCount(m[k]))
	}
	return strings.Join(parts, ", ")
}

// nonEmpty drops the parts that say nothing ("", or "ALPN " alone).
func nonEmpty(parts ...string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" && p != "ALPN " {
			out = append(out, p)
		}
	}
	return out
}
