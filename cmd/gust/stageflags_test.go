package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLoadRejectsBadStages(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a stage without a rate", []string{"--stages", "30s"}, `--stages: stage 1 "30s": want DURATION:RATE`},
		{"a negative rate", []string{"--stages", "1s:-1"}, "rate must be from 0"},
		{"a bad unit", []string{"--stages", "1y:10"}, `"1y" is not a duration`},
		{"stages of no time", []string{"--stages", "0s:10"}, "the stages last no time"},
		{"stages and -z", []string{"--stages", "1s:10", "-z", "1s"}, "drop -z"},
		{"stages and -n", []string{"--stages", "1s:10", "-n", "10"}, "drop -n"},
		{"stages and --rate", []string{"--stages", "1s:10", "--rate", "10"}, "not both"},
		{"stages and -q", []string{"--stages", "1s:10", "-q", "10"}, "not both"},
		{"stages and a warmup", []string{"--stages", "1s:10", "--warmup", "1s"}, "drop --warmup"},
		{"max connections without stages", []string{"--max-connections", "10"}, "give --stages"},
		{"max connections below -c", []string{"--stages", "1s:10", "-c", "10", "--max-connections", "5"}, "below -c"},
		{"a negative max", []string{"--stages", "1s:10", "--max-connections", "-1"}, "must not be negative"},
		{"a ramp-up with stages", []string{"--stages", "1s:10", "--ramp-up", "1s"}, "closed model"},
		{"a ramp-up with a rate", []string{"--rate", "10", "--ramp-up", "1s"}, "closed model"},
		{"a negative ramp-up", []string{"--ramp-up", "-1s"}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, append(append([]string{"load"}, tt.args...), refused)...)
			wantOneLineError(t, err, tt.want)
			if code := exitCode(err); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
		})
	}
}

// TestLoadStagesReportTheirTargets runs two short stages: the CSV has
// each second's target, the JSON says the stages and the targets, the
// text names the load model.
func TestLoadStagesReportTheirTargets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	stdout, _, err := gust(t, "load", "-c", "4", "--stages", "1s:200,1s:200", "-o", "csv", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) < 3 || lines[0] != "second,requests,errors,bytes_read,p50_us,p99_us,target_rate" ||
		!strings.HasSuffix(lines[1], ",100") || !strings.HasSuffix(lines[2], ",200") {
		t.Errorf("csv = %q, want a target_rate column of 100 then 200", stdout)
	}

	stdout, _, err = gust(t, "load", "-c", "4", "--stages", "0s:100,1s:100", "-o", "json", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stages   string `json:"stages"`
		Timeline []struct {
			TargetRate float64 `json:"target_rate"`
		} `json:"timeline"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Stages != "0s:100,1s:100" || len(doc.Timeline) == 0 || doc.Timeline[0].TargetRate != 100 {
		t.Errorf("json stages %q, timeline %v; want the stages and a target of 100", doc.Stages, doc.Timeline)
	}

	stdout, _, err = gust(t, "load", "-c", "4", "--ramp-up", "200ms", "-z", "500ms", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "closed model") || !strings.Contains(stdout, "4 opened") {
		t.Errorf("ramp-up report = %q, want the closed model and 4 connections", stdout)
	}
}
