package result

import "testing"

func TestGRPCFailedCallsCountInErrorRate(t *testing.T) {
	r := &Result{Requests: 100, Status: map[int]int64{200: 100}, Errors: map[ErrorKind]int64{},
		GRPC: &GRPC{Status: map[string]int64{"OK": 90, "UNAVAILABLE": 6, "INTERNAL": 4}}}
	th, err := ParseThreshold("error_rate<5%")
	if err != nil {
		t.Fatal(err)
	}
	v := th.Judge(r, StatusSet{})
	if v.OK || v.Value != 0.1 {
		t.Fatalf("error_rate %v (ok %v), want 0.1, failing", v.Value, v.OK)
	}
}

func TestGRPCCodeNames(t *testing.T) {
	for code, want := range map[int]string{0: "OK", 1: "CANCELLED", 4: "DEADLINE_EXCEEDED", 12: "UNIMPLEMENTED", 14: "UNAVAILABLE", 16: "UNAUTHENTICATED", 17: "CODE_17"} {
		if got := GRPCCodeName(code); got != want {
			t.Errorf("code %d named %s, want %s", code, got, want)
		}
	}
}
