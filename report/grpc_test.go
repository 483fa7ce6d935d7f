package report

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"github.com/gust-http/gust/result"
)

func TestGRPCStatusesSurviveJSONAndAddExactly(t *testing.T) {
	r := http2Run()
	r.GRPC = &result.GRPC{Status: map[string]int64{"OK": 900, "UNAVAILABLE": 7, "UNIMPLEMENTED": 3}, Messages: 9000}
	data := jsonOf(t, r)
	if !bytes.Contains(data, []byte(`"grpc": {`)) || !bytes.Contains(data, []byte(`"messages": 9000`)) {
		t.Fatalf("JSON has no grpc object:\n%s", data)
	}
	parts, err := ReadResults(append(append([]byte{}, data...), data...), "run.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := result.NewGRPC()
	for _, p := range parts {
		sum.Add(p.Result.GRPC)
	}
	want := map[string]int64{"OK": 1800, "UNAVAILABLE": 14, "UNIMPLEMENTED": 6}
	if !maps.Equal(sum.Status, want) || sum.Messages != 18000 {
		t.Fatalf("two parts added to %+v, want %v and 18000 messages", sum, want)
	}

	var text bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "OK 900, UNAVAILABLE 7, UNIMPLEMENTED 3; 9,000 response messages") {
		t.Fatalf("text has no gRPC line:\n%s", text.String())
	}
}

func TestGRPCResultIsAbsentFromOtherRuns(t *testing.T) {
	data := jsonOf(t, http2Run())
	if bytes.Contains(data, []byte(`"grpc"`)) {
		t.Fatal("a run without gRPC calls wrote a grpc key")
	}
	parts, err := ReadResults(data, "run.json")
	if err != nil || parts[0].Result.GRPC != nil {
		t.Fatalf("read back GRPC %v, err %v", parts[0].Result.GRPC, err)
	}
}
