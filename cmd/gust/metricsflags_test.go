package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestLoadRejectsBadMetricsFlags(t *testing.T) {
	url := "http://" + freeAddr(t) + "/" // never reached: the flags fail first
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a linger without an address", []string{"--metrics-linger", "5s"}, "--metrics-linger and --metrics-buckets need --metrics-addr"},
		{"buckets without an address", []string{"--metrics-buckets", "1ms"}, "need --metrics-addr"},
		{"a negative linger", []string{"--metrics-addr", "127.0.0.1:0", "--metrics-linger", "-1s"}, "--metrics-linger must not be negative"},
		{"a bucket that is not a duration", []string{"--metrics-addr", "127.0.0.1:0", "--metrics-buckets", "1ms,ten"}, `--metrics-buckets: "ten" is not a positive duration`},
		{"buckets out of order", []string{"--metrics-addr", "127.0.0.1:0", "--metrics-buckets", "5ms,2ms"}, "--metrics-buckets: 2ms is not above the bound before it"},
		{"an address without a port", []string{"--metrics-addr", "localhost"}, "--metrics-addr localhost: address localhost: missing port in address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, append(append([]string{"load", "-z", "1s"}, tt.args...), url)...)
			wantOneLineError(t, err, tt.want)
		})
	}
}

// TestLoadMetricsAddressInUse: a port that cannot be bound is one line on
// stderr and exit status 2, before any load is sent.
func TestLoadMetricsAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	start := time.Now()
	_, stderr, code := gustProcess(t, 20*time.Second, "load", "-z", "5s", "--metrics-addr", busy.Addr().String(), "http://"+target.Addr().String()+"/")
	want := "gust: load: --metrics-addr " + busy.Addr().String() + ": bind: address already in use\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if strings.Count(stderr, "\n") != 1 || time.Since(start) > 4*time.Second {
		t.Errorf("took %s: want the error before the run", time.Since(start))
	}
}
