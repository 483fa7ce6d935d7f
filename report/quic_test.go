package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// quicRun is shard i of an HTTP/3 run: its QUIC section filled, ECN on
// and one connection's validation failed.
func quicRun(i int) *result.Result {
	r := shardRun(i, fixtureStart.Add(time.Duration(i)*time.Millisecond), 2*time.Second, 3)
	q := result.NewQUIC()
	q.Streams = 10
	q.Full, q.Resumed, q.Retried = 20, int64(i), 1
	for c := range 20 + i {
		q.Handshake.RecordValue(int64(900 + 10*c))
		q.RTT.RecordValue(int64(150 + c))
	}
	q.PacketsSent, q.PacketsLost, q.BytesLost = 10000, 12, 14400
	q.CongestionEvents, q.PTOs = 5, 2
	q.DatagramsSent, q.DatagramsReceived = 9000, 11000
	q.SendCalls, q.ReceiveCalls = 3000, 2500
	q.GSO, q.GRO, q.GSOSends, q.GROSlots = true, true, 800, 400
	q.ECN, q.ECNValidated, q.ECNFailed, q.ECNCE, q.ECNMarked = true, 19, 1, 3, 10500
	q.Closes["idle_timeout"] = 1
	r.QUIC = q
	return r
}

// TestQUICText: the QUIC lines of the text report (golden file), ECN's
// among them, and an ECN line that says "off" when the run did not mark.
func TestQUICText(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, quicRun(0)); err != nil {
		t.Fatal(err)
	}
	var quic []string
	for _, l := range strings.Split(buf.String(), "\n") {
		for _, k := range []string{"QUIC", "RTT", "Packets", "Datagrams", "ECN"} {
			if strings.HasPrefix(strings.TrimSpace(l), k) {
				quic = append(quic, l)
				break
			}
		}
	}
	golden(t, "quic.text.golden", []byte(strings.Join(quic, "\n")+"\n"))

	off := quicRun(0)
	off.QUIC.ECN = false
	buf.Reset()
	if err := Text(&buf, off); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "ECN") || !strings.Contains(buf.String(), "off") {
		t.Errorf("a run without ECN does not say so:\n%s", buf.String())
	}
}

// TestQUICMergeKeepsECN: gust merge of shards read back from their JSON
// adds the ECN counts exactly.
func TestQUICMergeKeepsECN(t *testing.T) {
	var stream []byte
	for i := range 3 {
		stream = append(stream, jsonOf(t, quicRun(i))...)
	}
	parts, err := ReadResults(stream, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := result.Merge(parts, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	q := got.QUIC
	if q == nil || !q.ECN || q.ECNValidated != 57 || q.ECNFailed != 3 || q.ECNCE != 9 || q.ECNMarked != 31500 {
		t.Fatalf("merged QUIC section: %+v; want ECN on, 57 validated, 3 failed, 9 CE, 31500 marked", q)
	}
}
