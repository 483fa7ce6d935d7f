package result

import "testing"

func TestGRPCMessageThresholds(t *testing.T) {
	r := &Result{GRPC: NewGRPC()}
	for i := 0; i < 99; i++ {
		r.GRPC.MessageLatency.RecordValue(10000) // 10 ms
	}
	r.GRPC.MessageLatency.RecordValue(80000)
	r.GRPC.FirstMessage.RecordValue(3000)
	r.GRPC.Gap.RecordValue(500)
	for _, tc := range []struct {
		expr  string
		scope string
		ok    bool
		value float64 // us, to within the histogram's precision
	}{
		{"message p99<50ms", "message", true, 10000},
		{"message max<50ms", "message", false, 80000},
		{"first_message p95<5ms", "first_message", true, 3000},
		{"message_gap p99<1ms", "message_gap", true, 500},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			th, err := ParseThreshold(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if th.Scope != tc.scope {
				t.Fatalf("scope %q, want %q", th.Scope, tc.scope)
			}
			v := th.Judge(r, StatusSet{})
			if v.Note != "" || v.OK != tc.ok || v.Value < tc.value*0.99 || v.Value > tc.value*1.01 {
				t.Fatalf("ok %v value %v note %q; want ok %v value %v", v.OK, v.Value, v.Note, tc.ok, tc.value)
			}
		})
	}
	// Unmeasurable: not a gRPC run, nothing timed, or not a latency.
	for _, tc := range []struct {
		name, expr string
		r          *Result
	}{
		{"not a gRPC run", "message p99<50ms", &Result{}},
		{"unary calls time no message", "message p99<50ms", &Result{GRPC: NewGRPC()}},
		{"a rate is not a latency", "message error_rate<1%", r},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th, err := ParseThreshold(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if v := th.Judge(tc.r, StatusSet{}); v.OK || v.Note == "" {
				t.Fatalf("ok %v note %q, want a failure with a note", v.OK, v.Note)
			}
		})
	}
}

func TestGRPCStreamHistogramsAddExactly(t *testing.T) {
	a, b := NewGRPC(), NewGRPC()
	a.Sent, b.Sent = 10, 32
	for i := int64(1); i <= 1000; i++ {
		a.MessageLatency.RecordValue(i * 37)
		b.MessageLatency.RecordValue(i * 53)
		a.Gap.RecordValue(i)
	}
	b.FirstMessage.RecordValue(4242)
	want := NewHistogram()
	want.Merge(a.MessageLatency)
	want.Merge(b.MessageLatency)
	sum := NewGRPC()
	sum.Add(a)
	sum.Add(b)
	sum.Add(&GRPC{Status: map[string]int64{}}) // a part without histograms adds nothing
	if sum.Sent != 42 || !sum.MessageLatency.Equals(want) || sum.MessageLatency.TotalCount() != 2000 ||
		sum.Gap.TotalCount() != 1000 || sum.FirstMessage.TotalCount() != 1 || !sum.Streamed() {
		t.Fatalf("sum: %d sent, %d latencies, %d gaps, %d first messages", sum.Sent, sum.MessageLatency.TotalCount(), sum.Gap.TotalCount(), sum.FirstMessage.TotalCount())
	}
	if NewGRPC().Streamed() {
		t.Fatal("an empty record says it streamed")
	}
}
