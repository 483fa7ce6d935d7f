package result

// The values of Result.Protocol, and the names Result.Protocols counts
// connections by (ALPN's names for them).
const (
	// ProtoHTTP11 is HTTP/1.1: Result.Protocol "" (so that its reports
	// read as they always have), and a key of Result.Protocols.
	ProtoHTTP11 = "http/1.1"
	// ProtoH2C is HTTP/2 with prior knowledge over TCP (gust load --http2
	// to an http:// URL).
	ProtoH2C = "h2c"
	// ProtoH2 is HTTP/2 over TLS, agreed by ALPN; also a key of
	// Result.Protocols.
	ProtoH2 = "h2"
	// ProtoAuto is a run that offered h2 and http/1.1 by ALPN and spoke
	// what the server picked on each connection (gust load --proto auto);
	// Result.Protocols says how many connections got which.
	ProtoAuto = "auto"
	// ProtoH3 is HTTP/3 over QUIC (gust load --proto h3); Result.QUIC
	// describes its connections.
	ProtoH3 = "h3"
)

// SpokeHTTP2 reports whether any of r's connections spoke HTTP/2: every
// one of an h2 or h2c run, and for an auto run those that got h2 (if
// none did, its HTTP2 counters have nothing to say).
func (r *Result) SpokeHTTP2() bool {
	if r.HTTP2 == nil {
		return false
	}
	return r.Protocol != ProtoAuto || r.Protocols[ProtoH2] > 0
}

// addProtocols adds r's connections per protocol to out's, making out's
// map on first use, so that it stays nil unless a part negotiated.
func (out *Result) addProtocols(r *Result) {
	if r.Protocols == nil {
		return
	}
	if out.Protocols == nil {
		out.Protocols = make(map[string]int64, len(r.Protocols))
	}
	for proto, n := range r.Protocols {
		out.Protocols[proto] += n
	}
}
