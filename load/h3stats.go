package load

import (
	"errors"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/result"
)

// quicStats is one loop's record of its QUIC connections, written by the
// loop only: handshakes as they complete, each connection's round-trip
// time and loss counts as it ends, how connections ended before the run
// did, and the loop's datagram batches.
type quicStats struct {
	full, resumed int64
	retried       int64 // handshakes after a Retry
	handshakes    *hdrhistogram.Histogram
	rtt           *hdrhistogram.Histogram
	rec           quic.RecoveryStats
	ecnValidated  int64 // connections whose path validated ECN
	ecnFailed     int64 // and those whose path failed it
	ecnCE         int64 // CE marks the server reported
	ecnMarked     int64 // the server's packets that came marked
	closes        map[string]int64
	io            *quicBatches
	streams       int // -m, for the result
}

func newQUICStats(io *quicBatches) *quicStats {
	return &quicStats{
		handshakes: result.NewHistogram(),
		rtt:        result.NewHistogram(),
		closes:     make(map[string]int64),
		io:         io,
	}
}

// handshake records a completed handshake of took.
func (s *quicStats) handshake(took time.Duration, resumed, retried bool) {
	if retried {
		s.retried++
	}
	if resumed {
		s.resumed++
	} else {
		s.full++
	}
	s.handshakes.RecordValue(usec(int64(took)))
}

// add counts a connection's packets and round-trip time as it ends.
func (s *quicStats) add(st quic.ConnStats) {
	s.rec.PacketsSent += st.PacketsSent
	s.rec.PacketsLost += st.PacketsLost
	s.rec.BytesLost += st.BytesLost
	s.rec.CongestionEvents += st.CongestionEvents
	s.rec.PTOs += st.PTOs
	switch {
	case st.ECN:
		s.ecnValidated++
	case st.ECNFailed:
		s.ecnFailed++
	}
	s.ecnCE += int64(st.ECNCE)
	s.ecnMarked += int64(st.ECNMarked)
	if st.PacketsSent > 0 {
		s.rtt.RecordValue(usec(int64(st.SmoothedRTT)))
	}
}

// closed counts a connection that ended before the run did, by how.
func (s *quicStats) closed(err error) {
	s.closes[closeName(err)]++
}

// closeGoAway is how result.QUIC.Closes names a connection that ended
// because the server sent GOAWAY.
const closeGoAway = "peer: GOAWAY"

// closeName names how a connection ended, for result.QUIC.Closes.
func closeName(err error) string {
	var ce *quic.CloseError
	switch {
	case errors.Is(err, quic.ErrIdleTimeout):
		return "idle_timeout"
	case errors.Is(err, quic.ErrStatelessReset):
		return "stateless_reset"
	case errors.Is(err, quic.ErrVersionNegotiation):
		return "version_negotiation"
	case errors.As(err, &ce):
		side := "local: "
		if ce.Remote {
			side = "peer: "
		}
		if ce.Application {
			return side + http3.ErrCode(ce.Code).String()
		}
		return side + quic.TransportErrorCode(ce.Code).String()
	case err != nil:
		var he http3.ConnError
		if errors.As(err, &he) {
			return "local: " + he.Code.String()
		}
	}
	return "other"
}

// result returns s as a part of the run's result.QUIC; nil s (a run over
// TCP) gives nil.
func (s *quicStats) result() *result.QUIC {
	if s == nil {
		return nil
	}
	q := result.NewQUIC()
	q.Streams = s.streams
	q.Full, q.Resumed, q.Retried = s.full, s.resumed, s.retried
	q.Handshake, q.RTT = s.handshakes, s.rtt
	q.PacketsSent, q.PacketsLost, q.BytesLost = int64(s.rec.PacketsSent), int64(s.rec.PacketsLost), int64(s.rec.BytesLost)
	q.CongestionEvents, q.PTOs = int64(s.rec.CongestionEvents), int64(s.rec.PTOs)
	for k, n := range s.closes {
		q.Closes[k] = n
	}
	if io := s.io; io != nil {
		q.DatagramsSent, q.DatagramsReceived = io.sent, io.recv
		q.SendCalls, q.ReceiveCalls = io.sendCalls, io.recvCalls
		q.GSO, q.GRO = io.gso != nil, io.gro
		q.GSOSends, q.GROSlots = io.gsoSends, io.groSlots
		q.ECN = io.ecn
	}
	q.ECNValidated, q.ECNFailed, q.ECNCE, q.ECNMarked = s.ecnValidated, s.ecnFailed, s.ecnCE, s.ecnMarked
	return q
}
