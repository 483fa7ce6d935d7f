package result

import "github.com/HdrHistogram/hdrhistogram-go"

// QUIC is what an HTTP/3 run saw of its QUIC connections. Result.QUIC is
// nil for any other run, so that nothing of it shows in that run's
// reports.
//
// Handshakes count from the start of the run, ramp included, as TLS
// handshakes do. The packet counts and round-trip times are each
// connection's, added when it ends: at the end of the run for those still
// open.
type QUIC struct {
	// Streams is how many requests each connection kept in flight (-m).
	Streams int
	// Full counts handshakes that did not resume a TLS session; Resumed
	// those that did.
	Full, Resumed int64
	// Retried counts handshakes that followed the server's Retry (an
	// address validation round trip first).
	Retried int64
	// Handshake holds the handshake times, in microseconds, from the
	// first datagram sent to the handshake's completion.
	Handshake *hdrhistogram.Histogram
	// RTT holds each connection's smoothed round-trip time at its end, in
	// microseconds (RFC 9002 section 5.3).
	RTT *hdrhistogram.Histogram
	// PacketsSent counts packets sent; PacketsLost those declared lost
	// (their frames were sent again), BytesLost their bytes.
	PacketsSent, PacketsLost, BytesLost int64
	// CongestionEvents counts congestion window reductions, one per
	// recovery period; PTOs the probe timeouts that fired.
	CongestionEvents, PTOs int64
	// DatagramsSent and DatagramsReceived count UDP datagrams, and
	// SendCalls and ReceiveCalls the sendmmsg and recvmmsg calls that
	// moved them: the ratio is the batching the loops got.
	DatagramsSent, DatagramsReceived int64
	SendCalls, ReceiveCalls          int64
	// GSO and GRO say whether the run sent with UDP_SEGMENT and asked for
	// coalesced datagrams (the kernel offered them, and
	// GUST_QUIC_OFFLOAD=off did not turn them off); GSOSends counts sends
	// that carried several datagrams, GROSlots reads that held several.
	GSO, GRO           bool
	GSOSends, GROSlots int64
	// ECN says whether the run marked its packets ECT(0) and read the
	// marks that came (the kernel offered it, and GUST_QUIC_ECN=off did
	// not turn it off). ECNValidated and ECNFailed count the connections
	// whose path passed or failed ECN validation (RFC 9000 section
	// 13.4.2), ECNCE the CE marks the server counted on the run's
	// packets, ECNMarked the server's packets that came marked.
	ECN                                       bool
	ECNValidated, ECNFailed, ECNCE, ECNMarked int64
	// Closes counts connections that ended before the run did, by how:
	// "idle_timeout", "stateless_reset", "peer: H3_NO_ERROR", a transport
	// or application error's name, "local: ..." for this end's.
	Closes map[string]int64
}

// NewQUIC returns an empty QUIC record with its map and histograms made.
func NewQUIC() *QUIC {
	return &QUIC{Handshake: NewHistogram(), RTT: NewHistogram(), Closes: make(map[string]int64)}
}

// Handshakes returns the completed handshakes, full and resumed.
func (q *QUIC) Handshakes() int64 { return q.Full + q.Resumed }

// Add adds r's counts and histograms to q, whose map and histograms must
// be made (NewQUIC).
func (q *QUIC) Add(r *QUIC) {
	q.Streams = max(q.Streams, r.Streams)
	q.Full += r.Full
	q.Resumed += r.Resumed
	q.Retried += r.Retried
	q.PacketsSent += r.PacketsSent
	q.PacketsLost += r.PacketsLost
	q.BytesLost += r.BytesLost
	q.CongestionEvents += r.CongestionEvents
	q.PTOs += r.PTOs
	q.DatagramsSent += r.DatagramsSent
	q.DatagramsReceived += r.DatagramsReceived
	q.SendCalls += r.SendCalls
	q.ReceiveCalls += r.ReceiveCalls
	q.GSO, q.GRO = q.GSO || r.GSO, q.GRO || r.GRO
	q.GSOSends += r.GSOSends
	q.GROSlots += r.GROSlots
	q.ECN = q.ECN || r.ECN
	q.ECNValidated += r.ECNValidated
	q.ECNFailed += r.ECNFailed
	q.ECNCE += r.ECNCE
	q.ECNMarked += r.ECNMarked
	for k, n := range r.Closes {
		q.Closes[k] += n
	}
	if r.Handshake != nil {
		q.Handshake.Merge(r.Handshake)
	}
	if r.RTT != nil {
		q.RTT.Merge(r.RTT)
	}
}

// addQUIC adds r's QUIC record to out's, making out's on first use.
func (out *Result) addQUIC(r *Result) {
	if r.QUIC == nil {
		return
	}
	if out.QUIC == nil {
		out.QUIC = NewQUIC()
		if out.Latency != nil {
			out.QUIC.Handshake = newLike(out.Latency)
			out.QUIC.RTT = newLike(out.Latency)
		}
	}
	out.QUIC.Add(r.QUIC)
}
