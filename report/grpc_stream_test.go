package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// grpcStreamRun is shard i of a bidirectional gRPC run: 100 calls of 5
// messages each, every echo timed.
func grpcStreamRun(i int) *result.Result {
	r := shardRun(i, fixtureStart.Add(time.Duration(i)*time.Millisecond), 2*time.Second, 3)
	g := result.NewGRPC()
	g.Status["OK"] = 100
	g.Messages, g.Sent = 500, 500
	for c := 0; c < 100; c++ {
		g.FirstMessage.RecordValue(int64(1000 + 10*c + i))
		for m := 0; m < 5; m++ {
			g.MessageLatency.RecordValue(int64(1000*(m+1) + c + 7*i))
			if m > 0 {
				g.Gap.RecordValue(int64(1000 + m + i))
			}
		}
	}
	r.GRPC = g
	return r
}

func TestGRPCStreamJSONShape(t *testing.T) {
	var doc struct {
		GRPC json.RawMessage `json:"grpc"`
	}
	if err := json.Unmarshal(jsonOf(t, grpcStreamRun(0)), &doc); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc.GRPC, "", "  "); err != nil {
		t.Fatal(err)
	}
	golden(t, "grpc_stream.json.golden", append(out.Bytes(), '\n'))
}

func TestGRPCStreamHistogramsMergeExactly(t *testing.T) {
	var stream []byte
	var inMemory []result.Part
	for i := range 3 {
		r := grpcStreamRun(i)
		stream = append(stream, jsonOf(t, r)...)
		inMemory = append(inMemory, result.Part{Name: fmt.Sprintf("stdin#%d", i+1), Result: r})
	}
	parts, err := ReadResults(stream, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := result.Merge(parts, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want, err := result.Merge(inMemory, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.GRPC, want.GRPC
	if g.Sent != 1500 || g.Messages != 1500 || g.Status["OK"] != 300 || g.MessageLatency.TotalCount() != 1500 {
		t.Fatalf("merged %d sent, %d messages, %v, %d latencies; want 1500, 1500, OK 300, 1500", g.Sent, g.Messages, g.Status, g.MessageLatency.TotalCount())
	}
	if !g.MessageLatency.Equals(w.MessageLatency) || !g.FirstMessage.Equals(w.FirstMessage) || !g.Gap.Equals(w.Gap) {
		t.Fatal("gRPC histograms merged from JSON differ from the in-memory merge")
	}
	var text bytes.Buffer
	if err := Text(&text, got); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"1,500 sent (749/s), 1,500 received (749/s)", "\nPer message p50 ", "\nFirst msg   p50 ", "\nMessage gap p50 "} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text has no %q:\n%s", line, text.String())
		}
	}
}

func TestGRPCStreamFieldsAbsentFromUnaryRuns(t *testing.T) {
	r := http2Run()
	r.GRPC = result.NewGRPC()
	r.GRPC.Status["OK"], r.GRPC.Messages = 10, 10
	data := jsonOf(t, r)
	for _, key := range []string{"sent", "messages_per_s", "message_latency", "first_message", "message_gap"} {
		if bytes.Contains(data, []byte(`"`+key)) {
			t.Errorf("a unary run's JSON has %q", key)
		}
	}
	parts, err := ReadResults(data, "run.json")
	if err != nil {
		t.Fatal(err)
	}
	if g := parts[0].Result.GRPC; g.MessageLatency == nil || g.MessageLatency.TotalCount() != 0 {
		t.Fatalf("read back a message latency histogram %v, want an empty one", g.MessageLatency)
	}
}
