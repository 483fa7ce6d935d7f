package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

func TestText(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, f.result()); err != nil {
				t.Fatal(err)
			}
			golden(t, "text_"+f.name+".golden", buf.Bytes())
			if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
				t.Errorf("output holds NaN or Inf:\n%s", buf.String())
			}
		})
	}
}

func TestTextSections(t *testing.T) {
	tests := []struct {
		name    string
		run     func() *result.Result
		want    []string
		notWant []string
	}{
		{
			name:    "a closed run has no schedule line and no connect line without connect times",
			run:     closedRun,
			want:    []string{"closed model (as fast as possible)", "Latency distribution", "Errors      none"},
			notWant: []string{"Schedule", "Connect ", "(interrupted)"},
		},
		{
			name: "an open run reports late requests",
			run:  openLateRun,
			want: []string{"open model at 10,000 req/s", "pipeline 8", "Schedule    1,234 of 100,000 requests started more than 1ms late"},
		},
		{
			name: "an open run without late requests says all were on time",
			run: func() *result.Result {
				r := openLateRun()
				r.Late = 0
				return r
			},
			want: []string{"Schedule    all requests started on time (none more than 1ms late)"},
		},
		{
			name: "a run without keep-alive shows connect times",
			run:  keepAliveOffRun,
			want: []string{"keep-alive off", "Connect     p50 60us", "connect_refused: 3, reset: 1"},
		},
		{
			name: "one shard of a run says which",
			run: func() *result.Result {
				return shardRun(1, fixtureStart, 3*time.Second, 3)
			},
			want:    []string{"20 connections on 2 loops (shard 1/3), keep-alive, open model at 1,000 req/s"},
			notWant: []string{"Agents"},
		},
		{
			name:    "a merged run lists its agents and flags the late and short one",
			run:     mergedRun,
			want:    []string{"60 connections on 6 loops across 3 agents", "Agents      3 agents, 1 flagged", "+1.2s     1.8s", "late, short         agent-2.json"},
			notWant: []string{"missing"},
		},
		{
			name: "a merged run without a shard names the missing one",
			run: func() *result.Result {
				r, err := result.Merge([]result.Part{
					{Name: "a", Result: shardRun(0, fixtureStart, 3*time.Second, 3)},
					{Name: "c", Result: shardRun(2, fixtureStart, 3*time.Second, 3)},
				}, result.DefaultMaxSkew)
				if err != nil {
					panic(err)
				}
				return r
			},
			want: []string{"Agents      2 agents; missing 1 shard: 1/3"},
		},
		{
			name:    "an empty interrupted run says so instead of drawing a table",
			run:     emptyInterruptedRun,
			want:    []string{"1.5s (interrupted)", "Latency     no responses", "Status      none"},
			notWant: []string{"Latency distribution", "p99.9"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.run()); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(out, s) {
					t.Errorf("output holds %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestTextReportsWriteErrors(t *testing.T) {
	if err := Text(failingWriter{}, closedRun()); err == nil {
		t.Error("Text to a failing writer returned no error")
	}
}
