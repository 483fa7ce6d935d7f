package quic

import (
	"testing"
)

// ecnOn turns ECN on at both ends of a connPair.
func ecnOn(c *Config) { c.ECN = true }

// TestECNPaths runs a connection with ECN on both ends over paths that do
// different things to the marks, and checks what each end concludes (RFC
// 9000 section 13.4.2) and that the streams arrive whole in every case.
func TestECNPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		// path is what the network does to a datagram's codepoint; client
		// tells whether it came from the client.
		path          func(n int, client bool, mark ECN) ECN
		wantValidated bool // both ends
		wantFailed    bool // both ends
		wantCE        bool // the client's packets were reported CE and it slowed down
	}{
		{name: "marks carried", wantValidated: true},
		// The peer's ACKs carry no counts (type 0x02) while they
		// acknowledge marked packets.
		{name: "marks cleared", wantFailed: true,
			path: func(int, bool, ECN) ECN { return ECNNotECT }},
		// Counts come, but fewer than the marked packets acknowledged.
		{name: "some marks cleared", wantFailed: true,
			path: func(n int, _ bool, m ECN) ECN {
				if n%3 == 0 {
					return ECNNotECT
				}
				return m
			}},
		{name: "marks made ECT(1)", wantFailed: true,
			path: func(_ int, _ bool, m ECN) ECN {
				if m == ECNECT0 {
					return ECNECT1
				}
				return m
			}},
		{name: "client's marks made CE", wantValidated: true, wantCE: true,
			path: func(n int, client bool, m ECN) ECN {
				if client && m == ECNECT0 && n%5 == 0 {
					return ECNCE
				}
				return m
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newConnPair(t, ecnOn)
			if tc.path != nil {
				p.path = func(n int, from *Conn, m ECN) ECN { return tc.path(n, from == p.client, m) }
			}
			p.handshake()
			exchangeStreams(t, p, 20, 20000)
			for _, c := range []*Conn{p.client, p.server} {
				st := c.Stats()
				if st.ECN != tc.wantValidated || st.ECNFailed != tc.wantFailed {
					t.Errorf("client %v: validated %v, failed %v; want %v, %v", c.isClient, st.ECN, st.ECNFailed, tc.wantValidated, tc.wantFailed)
				}
				mark := c.DatagramECN()
				if tc.wantFailed && mark != ECNNotECT {
					t.Errorf("client %v: still marks %d after failing", c.isClient, mark)
				}
				if tc.wantValidated && mark != ECNECT0 {
					t.Errorf("client %v: marks %d once validated, want ECT(0)", c.isClient, mark)
				}
			}
			st := p.client.Stats()
			if tc.wantCE && (st.ECNCE == 0 || st.CongestionEvents == 0) {
				t.Errorf("CE marks reported %d, congestion events %d: want both above 0", st.ECNCE, st.CongestionEvents)
			}
			if !tc.wantCE && st.ECNCE != 0 {
				t.Errorf("CE marks reported %d on a path that sets none", st.ECNCE)
			}
			if tc.wantValidated && !tc.wantCE && st.PacketsLost == 0 && st.CongestionEvents != 0 {
				t.Errorf("%d congestion events with no loss and no CE", st.CongestionEvents)
			}
		})
	}
}

// TestECNCountsInAcks: with ECN on, the ACK frames of a space carry the
// marks of the packets that space received, counted once per packet
// (coalesced packets each count, duplicates do not).
func TestECNCountsInAcks(t *testing.T) {
	p := newConnPair(t, ecnOn)
	p.handshake()
	exchangeStreams(t, p, 4, 3000)
	app := p.server.spaces[spaceApp]
	got := app.ecnRecv
	if got.ECT0 == 0 || got.ECT1 != 0 || got.CE != 0 {
		t.Fatalf("server counted %+v", got)
	}
	// What the client last validated never runs ahead of what the
	// server counted.
	if acked := p.client.spaces[spaceApp].ecnAcked; acked.ECT0 > got.ECT0 || acked.ECT0 == 0 {
		t.Fatalf("client validated %+v of the server's %+v", acked, got)
	}
	// Long header packets are never marked: the counts of their spaces,
	// kept when the spaces went, are zero.
	if p.server.long != nil || p.server.longMarks != 0 {
		t.Errorf("long header spaces kept (%v), counted %d marked handshake packets", p.server.long != nil, p.server.longMarks)
	}
}

// TestECNOff: without Config.ECN nothing is marked and no path is
// validated; marks that do arrive are still counted in the ACKs.
func TestECNOff(t *testing.T) {
	p := newConnPair(t, nil)
	p.path = func(int, *Conn, ECN) ECN { return ECNECT0 } // as if the peer marked
	p.handshake()
	exchangeStreams(t, p, 4, 3000)
	for _, c := range []*Conn{p.client, p.server} {
		if m := c.DatagramECN(); m != ECNNotECT {
			t.Errorf("client %v marks %d with ECN off", c.isClient, m)
		}
		st := c.Stats()
		if st.ECN || st.ECNFailed {
			t.Errorf("client %v: validated %v, failed %v with ECN off", c.isClient, st.ECN, st.ECNFailed)
		}
	}
	// The marks received are still counted and reported: the peer may
	// be validating its own.
	if r := p.server.spaces[spaceApp].ecnRecv; r.ECT0 == 0 {
		t.Errorf("server did not count the client's marks: %+v", r)
	}
}

// TestECNTestPacketsAllLost: a path that drops every marked datagram
// (a middlebox that will not carry ECT) costs the first packets; the
// sender gives marks up and the streams go through.
func TestECNTestPacketsAllLost(t *testing.T) {
	p := newConnPair(t, ecnOn)
	dropped := 0
	p.path = func(_ int, _ *Conn, m ECN) ECN {
		if m == ECNECT0 {
			dropped++
			return dropDatagram
		}
		return m
	}
	p.handshake()
	exchangeStreams(t, p, 4, 20000)
	for _, c := range []*Conn{p.client, p.server} {
		st := c.Stats()
		if !st.ECNFailed || st.ECN {
			t.Errorf("client %v: validated %v, failed %v; want failed", c.isClient, st.ECN, st.ECNFailed)
		}
	}
	// Each end marks at most its test packets, in as many datagrams.
	if dropped == 0 || dropped > 2*ecnTestPackets {
		t.Errorf("%d marked datagrams dropped, want 1 to %d", dropped, 2*ecnTestPackets)
	}
}
