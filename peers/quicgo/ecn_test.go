package main

import (
	"testing"

	"github.com/gust-http/gust/load"
)

// TestGustLoadValidatesECNWithQuicGo: quic-go's server reads the ECN
// codepoints of what arrives and reports them in its ACKs, so gust load's
// ECT(0) marks validate on every connection, and gust load counts the
// marks of quic-go's own packets. With QUIC_GO_DISABLE_ECN quic-go stops
// marking but goes on reporting what it reads: gust load's marks still
// validate, and no packet comes marked.
func TestGustLoadValidatesECNWithQuicGo(t *testing.T) {
	for _, off := range []bool{false, true} {
		name := "quic-go with ECN"
		if off {
			name = "quic-go without ECN"
		}
		t.Run(name, func(t *testing.T) {
			if off {
				t.Setenv("QUIC_GO_DISABLE_ECN", "true")
			}
			url := serve(t, 0)
			res := runH3(t, load.Config{URL: url, Connections: 4, Streams: 8, Requests: 4000, Loops: 1})
			if res.Status[200] != 4000 || res.ErrorCount() != 0 {
				t.Fatalf("status %v, errors %v; want 4000 answered", res.Status, res.Errors)
			}
			q := res.QUIC
			if !q.ECN {
				t.Skip("this kernel does not hand ECN codepoints to readers")
			}
			t.Logf("ECN validated %d, failed %d, CE %d, marked %d", q.ECNValidated, q.ECNFailed, q.ECNCE, q.ECNMarked)
			switch {
			case !off && (q.ECNValidated != 4 || q.ECNFailed != 0 || q.ECNMarked == 0):
				t.Errorf("ECN validated on %d, failed on %d, %d packets came marked; want 4, 0, above 0", q.ECNValidated, q.ECNFailed, q.ECNMarked)
			case off && (q.ECNValidated != 4 || q.ECNFailed != 0 || q.ECNMarked != 0):
				t.Errorf("ECN validated on %d, failed on %d, %d packets came marked; want 4, 0, 0", q.ECNValidated, q.ECNFailed, q.ECNMarked)
			}
		})
	}
}
