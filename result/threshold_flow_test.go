package result

import "testing"

func flowResult() *Result {
	r := &Result{Flows: &Flows{Duration: NewHistogram(), Checks: []FlowCheck{
		{Step: "login", Check: "status", Passed: 999, Failed: 1},
		{Step: "GET /items", Check: "status", Passed: 1000},
	}}}
	for i := int64(1); i <= 100; i++ {
		r.Flows.Duration.RecordValue(i * 10000) // 10ms to 1s
	}
	login := NewEndpointHistogram()
	login.RecordValue(150000)
	items := NewEndpointHistogram()
	items.RecordValue(5000)
	r.Endpoints = []Endpoint{{Name: "login", Requests: 1, Latency: login}, {Name: "GET /items", Requests: 1, Errors: 1, Latency: items}}
	r.Flows.Iterations = 100
	return r
}

func TestFlowThresholds(t *testing.T) {
	tests := []struct {
		expr string
		ok   bool
		note bool
	}{
		{"checks>99.9%", true, false},
		{"checks>99.99%", false, false},
		{"step:login p99<200ms", true, false},
		{"step:login p99<100ms", false, false},
		{"step:GET /items max<10ms", true, false},
		{"step:GET /items error_rate<10%", false, false},
		{"iteration p95<2s", true, false},
		{"iteration p50<100ms", false, false},
		{"step:nope p99<1s", false, true},
		{"step:login rps>1", false, true},
	}
	r := flowResult()
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			th, err := ParseThreshold(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Judge(r, StatusSet{})
			if v.OK != tc.ok || (v.Note != "") != tc.note {
				t.Fatalf("verdict %+v, want ok=%v note=%v", v, tc.ok, tc.note)
			}
		})
	}
	th, _ := ParseThreshold("checks>50%")
	if v := th.Judge(&Result{}, StatusSet{}); v.OK || v.Note == "" {
		t.Fatalf("checks judged on a run without flows: %+v", v)
	}
	for _, bad := range []string{"step: p99<1s", "step:login<1s", "iteration rps>1x"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
