package report

import (
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// QUICStats is Summary.QUIC, an HTTP/3 run's QUIC connections
// (result.QUIC); it is left out for every other run.
type QUICStats struct {
	// Streams is how many requests each connection kept in flight (-m).
	Streams int `json:"streams"`
	// Full counts handshakes that did not resume a TLS session; Resumed
	// those that did.
	Full    int64 `json:"full"`
	Resumed int64 `json:"resumed"`
	// Retried counts handshakes that followed the server's Retry.
	Retried int64 `json:"retried"`
	// Handshake describes the handshake times, in microseconds from the
	// first datagram sent; nil when none completed.
	Handshake *Stats `json:"handshake_us,omitempty"`
	// RTT describes each connection's smoothed round-trip time at its
	// end, in microseconds; nil when none ended.
	RTT *Stats `json:"rtt_us,omitempty"`
	// PacketsSent, PacketsLost and BytesLost are loss detection's counts;
	// CongestionEvents the window reductions, PTOs the probe timeouts.
	PacketsSent      int64 `json:"packets_sent"`
	PacketsLost      int64 `json:"packets_lost"`
	BytesLost        int64 `json:"bytes_lost"`
	CongestionEvents int64 `json:"congestion_events"`
	PTOs             int64 `json:"ptos"`
	// DatagramsSent and DatagramsReceived count UDP datagrams, SendCalls
	// and ReceiveCalls the sendmmsg and recvmmsg calls that moved them.
	DatagramsSent     int64 `json:"datagrams_sent"`
	DatagramsReceived int64 `json:"datagrams_received"`
	SendCalls         int64 `json:"send_calls"`
	ReceiveCalls      int64 `json:"receive_calls"`
	// GSO and GRO say whether the offloads were on; GSOSends counts sends
	// of several datagrams, GROSlots reads that held several.
	GSO      bool  `json:"gso"`
	GRO      bool  `json:"gro"`
	GSOSends int64 `json:"gso_sends"`
	GROSlots int64 `json:"gro_slots"`
	// ECN says whether packets were marked and marks read; ECNValidated
	// and ECNFailed count connections by their ECN validation, ECNCE the
	// CE marks the server reported, ECNMarked its packets that came
	// marked.
	ECN          bool  `json:"ecn"`
	ECNValidated int64 `json:"ecn_validated"`
	ECNFailed    int64 `json:"ecn_failed"`
	ECNCE        int64 `json:"ecn_ce"`
	ECNMarked    int64 `json:"ecn_marked"`
	// Closes counts connections that ended before the run did, by how.
	Closes map[string]int64 `json:"closes"`
	// HandshakeHdr and RTTHdr are the histograms, encoded as
	// Summary.LatencyHdr is, so that gust merge adds them exactly.
	HandshakeHdr string `json:"handshake_hdr"`
	RTTHdr       string `json:"rtt_hdr"`
}

// newQUICStats describes q; nil gives nil.
func newQUICStats(q *result.QUIC) *QUICStats {
	if q == nil {
		return nil
	}
	hs, rtt := orEmpty(q.Handshake), orEmpty(q.RTT)
	s := &QUICStats{
		Streams: q.Streams,
		Full:    q.Full, Resumed: q.Resumed, Retried: q.Retried,
		PacketsSent: q.PacketsSent, PacketsLost: q.PacketsLost, BytesLost: q.BytesLost,
		CongestionEvents: q.CongestionEvents, PTOs: q.PTOs,
		DatagramsSent: q.DatagramsSent, DatagramsReceived: q.DatagramsReceived,
		SendCalls: q.SendCalls, ReceiveCalls: q.ReceiveCalls,
		GSO: q.GSO, GRO: q.GRO, GSOSends: q.GSOSends, GROSlots: q.GROSlots,
		ECN: q.ECN, ECNValidated: q.ECNValidated, ECNFailed: q.ECNFailed, ECNCE: q.ECNCE, ECNMarked: q.ECNMarked,
		Closes:       orEmptyMap(q.Closes),
		HandshakeHdr: encode(hs),
		RTTHdr:       encode(rtt),
	}
	if hs.TotalCount() > 0 {
		st := newStats(hs)
		s.Handshake = &st
	}
	if rtt.TotalCount() > 0 {
		st := newStats(rtt)
		s.RTT = &st
	}
	return s
}

// quicResult rebuilds result.QUIC from s, its histograms with like's
// settings when empty; nil s gives nil.
func quicResult(s *QUICStats, like *hdrhistogram.Histogram) (*result.QUIC, error) {
	if s == nil {
		return nil, nil
	}
	if s.HandshakeHdr == "" || s.RTTHdr == "" {
		return nil, errors.New("a QUIC result without its histograms (quic.handshake_hdr, quic.rtt_hdr)")
	}
	q := result.NewQUIC()
	q.Streams = s.Streams
	q.Full, q.Resumed, q.Retried = s.Full, s.Resumed, s.Retried
	q.PacketsSent, q.PacketsLost, q.BytesLost = s.PacketsSent, s.PacketsLost, s.BytesLost
	q.CongestionEvents, q.PTOs = s.CongestionEvents, s.PTOs
	q.DatagramsSent, q.DatagramsReceived = s.DatagramsSent, s.DatagramsReceived
	q.SendCalls, q.ReceiveCalls = s.SendCalls, s.ReceiveCalls
	q.GSO, q.GRO, q.GSOSends, q.GROSlots = s.GSO, s.GRO, s.GSOSends, s.GROSlots
	q.ECN, q.ECNValidated, q.ECNFailed, q.ECNCE, q.ECNMarked = s.ECN, s.ECNValidated, s.ECNFailed, s.ECNCE, s.ECNMarked
	for k, n := range s.Closes {
		q.Closes[k] = n
	}
	var err error
	if q.Handshake, err = decodeHistogram("quic.handshake_hdr", s.HandshakeHdr, like); err != nil {
		return nil, err
	}
	if n := q.Handshake.TotalCount(); n != q.Handshakes() {
		return nil, fmt.Errorf("quic.handshake_hdr holds %d values but full and resumed add up to %d: the result was changed or cut", n, q.Handshakes())
	}
	if q.RTT, err = decodeHistogram("quic.rtt_hdr", s.RTTHdr, like); err != nil {
		return nil, err
	}
	return q, nil
}

// quicFacts describe an HTTP/3 run's QUIC connections for Text and HTML,
// after the connect times: handshakes, round trips, losses, the
// batching of datagrams, and connections that ended early.
func quicFacts(q *result.QUIC) []fact {
	if q == nil {
		return nil
	}
	counts := fmt.Sprintf("%s full, %s resumed", formatCount(q.Full), formatCount(q.Resumed))
	if q.Retried > 0 {
		counts += fmt.Sprintf(", %s after a Retry", formatCount(q.Retried))
	}
	hs := counts
	if h := orEmpty(q.Handshake); h.TotalCount() > 0 {
		s := newStats(h)
		hs = fmt.Sprintf("p50 %s, p99 %s, max %s (%s)",
			formatMicros(float64(s.P50)), formatMicros(float64(s.P99)), formatMicros(float64(s.Max)), counts)
	}
	facts := []fact{{"QUIC", hs}}
	if h := orEmpty(q.RTT); h.TotalCount() > 0 {
		s := newStats(h)
		facts = append(facts, fact{"RTT", fmt.Sprintf("p50 %s, max %s (smoothed, per connection)",
			formatMicros(float64(s.P50)), formatMicros(float64(s.Max)))})
	}
	facts = append(facts, fact{"Packets", fmt.Sprintf("%s sent, %s lost, %s congestion events, %s PTOs",
		formatCount(q.PacketsSent), formatCount(q.PacketsLost), formatCount(q.CongestionEvents), formatCount(q.PTOs))})
	gso, gro := "GSO off", "GRO off"
	if q.GSO {
		gso = "GSO: " + plural(q.GSOSends, "send", "sends") + " of several"
	}
	if q.GRO {
		gro = "GRO: " + plural(q.GROSlots, "read", "reads") + " of several"
	}
	facts = append(facts, fact{"Datagrams", fmt.Sprintf("%s sent in %s calls (%s), %s received in %s recvmmsg (%s)",
		formatCount(q.DatagramsSent), formatCount(q.SendCalls), gso, formatCount(q.DatagramsReceived), formatCount(q.ReceiveCalls), gro)})
	if q.ECN {
		facts = append(facts, fact{"ECN", fmt.Sprintf("validated on %s, failed on %s; %s reported; %s received marked",
			plural(q.ECNValidated, "connection", "connections"), formatCount(q.ECNFailed), plural(q.ECNCE, "CE mark", "CE marks"),
			plural(q.ECNMarked, "packet", "packets"))})
	} else {
		facts = append(facts, fact{"ECN", "off"})
	}
	if len(q.Closes) > 0 {
		facts = append(facts, fact{"QUIC closes", countedAll(q.Closes)})
	}
	return facts
}
