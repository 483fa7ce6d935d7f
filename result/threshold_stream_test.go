package result

import "testing"

func TestStreamThresholds(t *testing.T) {
	r := &Result{Stream: NewStream(true)}
	for _, v := range []int64{1000, 2000, 3000, 40000} { // first events, us
		r.Stream.FirstEvent.RecordValue(v)
	}
	for i := 0; i < 99; i++ {
		r.Stream.Gap.RecordValue(10000)
	}
	r.Stream.Gap.RecordValue(90000)
	r.Stream.FirstByte.RecordValue(500)
	for _, tc := range []struct {
		expr  string
		scope string
		ok    bool
		value float64 // us, to within the histogram's precision
	}{
		{"first_event p99<50ms", "first_event", true, 40000},
		{"first_event p50<2ms", "first_event", false, 2000},
		{"first_event max<41ms", "first_event", true, 40000},
		{"gap p99<20ms", "gap", true, 10000},
		{"gap max<20ms", "gap", false, 90000},
		{"first_byte p50<1ms", "first_byte", true, 500},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if th.Scope != tc.scope {
			t.Errorf("%s: scope %q, want %q", tc.expr, th.Scope, tc.scope)
		}
		v := th.Judge(r, StatusSet{})
		if v.Note != "" || v.OK != tc.ok || v.Value < tc.value*0.99 || v.Value > tc.value*1.01 {
			t.Errorf("%s: ok %v value %v note %q; want ok %v value %v", tc.expr, v.OK, v.Value, v.Note, tc.ok, tc.value)
		}
	}
	// Unmeasurable: no streams, or not a latency: fail with a note.
	for _, tc := range []struct {
		expr string
		r    *Result
	}{
		{"first_event p99<50ms", &Result{}},
		{"gap error_rate<1%", r},
		{"first_byte p99<1s", &Result{Stream: NewStream(false)}},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if v := th.Judge(tc.r, StatusSet{}); v.OK || v.Note == "" {
			t.Errorf("%s: ok %v note %q, want a failure with a note", tc.expr, v.OK, v.Note)
		}
	}
}
