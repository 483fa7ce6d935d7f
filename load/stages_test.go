package load

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

func TestParseStages(t *testing.T) {
	tests := []struct {
		in      string
		want    []Stage
		wantErr string
	}{
		{in: "30s:1000,2m:5000,30s:0", want: []Stage{{30 * time.Second, 1000}, {2 * time.Minute, 5000}, {30 * time.Second, 0}}},
		{in: " 1s:2.5 , 500ms:10 ", want: []Stage{{time.Second, 2.5}, {500 * time.Millisecond, 10}}},
		{in: "0s:100,10s:100", want: []Stage{{0, 100}, {10 * time.Second, 100}}},
		{in: "", wantErr: "no stages"},
		{in: "30s", wantErr: `stage 1 "30s": want DURATION:RATE`},
		{in: "1s:10,30s", wantErr: `stage 2 "30s": want DURATION:RATE`},
		{in: "30:100", wantErr: `"30" is not a duration`},
		{in: "1x:100", wantErr: `"1x" is not a duration`},
		{in: "1s:fast", wantErr: `"fast" is not a rate`},
		{in: "1s:-5", wantErr: "stage 1: rate must be from 0"},
		{in: "1s:NaN", wantErr: "stage 1: rate must be from 0"},
		{in: "1s:Inf", wantErr: "stage 1: rate must be from 0"},
		{in: "-1s:5", wantErr: "stage 1: duration must not be negative"},
		{in: "0s:5,0s:10", wantErr: "the stages last no time"},
		{in: "1s:5,", wantErr: `stage 2 "": want DURATION:RATE`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseStages(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("stage %d is %v, want %v", i, got[i], tt.want[i])
				}
			}
			back, err := ParseStages(FormatStages(got))
			if err != nil || len(back) != len(got) {
				t.Fatalf("FormatStages %q does not parse back: %v", FormatStages(got), err)
			}
		})
	}
}

// FuzzParseStages checks that any input parses to stages that run, or to
// a one-line error, and that what parses formats back to itself.
func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"30s:1000,2m:5000,30s:0", "1s:1", "0s:5,1ms:0", "30s", "1h:1e9", ":", ",,", "1s:1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stages, err := ParseStages(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if err := checkStages(stages); err != nil {
			t.Fatalf("ParseStages accepted %q, which checkStages refuses: %v", s, err)
		}
		back, err := ParseStages(FormatStages(stages))
		if err != nil || len(back) != len(stages) {
			t.Fatalf("%q formats as %q, which does not parse back: %v", s, FormatStages(stages), err)
		}
		for i := range back {
			if back[i] != stages[i] {
				t.Fatalf("stage %d is %v after formatting, was %v", i, back[i], stages[i])
			}
		}
		c := newCurve(stages)
		if c.total < 0 || math.IsNaN(c.total) {
			t.Fatalf("curve of %q counts %g requests", s, c.total)
		}
	})
}

// TestCurveIntendsEachSecondsCount checks N and its inverse: the times
// of the requests fall in each second as often as the rate curve says, as
// in the example (2s:2000,2s:2000 sends 2000 requests in its
// first two seconds and 4000 in its last two).
func TestCurveIntendsEachSecondsCount(t *testing.T) {
	tests := []struct {
		stages string
		want   []int // requests intended per second
	}{
		{"2s:2000,2s:2000", []int{500, 1500, 2000, 2000}},
		{"1s:1000,1s:3000,1s:0", []int{500, 2000, 1500}},
		{"0s:1000,2s:1000", []int{1000, 1000}},
		{"2s:0,1s:100", []int{0, 0, 50}},
		{"1s:4000,2s:2000,1s:2000", []int{2000, 3500, 2500, 2000}},
		// N(1..4) = 0.375, 1.5, 3.375, 6: the n-th request (from 0) is
		// where N(t) = n, so second s has those with N(s) <= n < N(s+1).
		{"4s:3", []int{1, 1, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.stages, func(t *testing.T) {
			stages, err := ParseStages(tt.stages)
			if err != nil {
				t.Fatal(err)
			}
			c := newCurve(stages)
			got := make([]int, len(tt.want))
			seg, last := 0, int64(-1)
			for n := 0.0; ; n++ {
				at := c.timeOf(n, &seg)
				if at < 0 {
					break
				}
				if at < last {
					t.Fatalf("request %g at %d ns, before the one before it (%d)", n, at, last)
				}
				last = at
				got[at/int64(time.Second)]++
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("per second %v, want %v", got, tt.want)
				}
				if d := c.inSecond(i) - float64(tt.want[i]); math.Abs(d) > 1 {
					t.Errorf("second %d: the timeline's target %g, want about %d", i, c.inSecond(i), tt.want[i])
				}
			}
		})
	}
}

func TestTargetRateAt(t *testing.T) {
	stages := []Stage{{2 * time.Second, 2000}, {2 * time.Second, 2000}, {time.Second, 0}}
	tests := []struct {
		name    string
		cfg     Config
		elapsed time.Duration
		want    float64
	}{
		{"the closed model asks for no rate", Config{}, time.Second, 0},
		{"a constant rate is its rate", Config{Rate: 500}, time.Hour, 500},
		{"a shard of a constant rate is its share", Config{Rate: 1001, Shard: result.Shard{Index: 0, Count: 4}}, 0, 251},
		{"stages start from 0", Config{Stages: stages}, 0, 0},
		{"halfway up the first stage", Config{Stages: stages}, time.Second, 1000},
		{"a flat stage", Config{Stages: stages}, 3 * time.Second, 2000},
		{"ramping down", Config{Stages: stages}, 4500 * time.Millisecond, 1000},
		{"after the last stage", Config{Stages: stages}, 6 * time.Second, 0},
		{"a shard of stages", Config{Stages: stages, Shard: result.Shard{Index: 1, Count: 4}}, 3 * time.Second, 500},
		{"recorded times ask for no rate", Config{Speed: 2}, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.TargetRateAt(tt.elapsed); math.Abs(got-tt.want) > 1e-9 {
				t.Fatalf("TargetRateAt(%s) = %g, want %g", tt.elapsed, got, tt.want)
			}
		})
	}
	cfg := Config{Stages: stages}
	if n := testing.AllocsPerRun(100, func() { cfg.TargetRateAt(3 * time.Second) }); n != 0 {
		t.Errorf("TargetRateAt allocates %g times", n)
	}
}

// TestStagesConfigErrors checks what a run in stages refuses, each with
// one line that says what to do.
func TestStagesConfigErrors(t *testing.T) {
	stages := []Stage{{time.Second, 100}}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"a duration other than the stages' sum", Config{Stages: stages, Duration: 2 * time.Second}, "drop -z"},
		{"a rate", Config{Stages: stages, Rate: 10}, "not both"},
		{"a request count", Config{Stages: stages, Requests: 10}, "drop -n"},
		{"a warmup", Config{Stages: stages, Warmup: time.Second}, "drop --warmup"},
		{"no keep-alive", Config{Stages: stages, DisableKeepAlive: true}, "drop --disable-keepalive"},
		{"stages of no time", Config{Stages: []Stage{{0, 100}}, Duration: time.Second}, "last no time"},
		{"max connections without stages", Config{MaxConnections: 10, Duration: time.Second}, "give --stages"},
		{"max connections below the pool", Config{Stages: stages, Connections: 10, MaxConnections: 5}, "below -c"},
		{"a ramp-up in the open model", Config{Rate: 10, RampUp: time.Second, Duration: time.Second}, "closed model"},
		{"a negative ramp-up", Config{RampUp: -time.Second, Duration: time.Second}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.URL = "http://127.0.0.1:1/"
			_, err := newEngine(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line containing %q", err, tt.want)
			}
		})
	}
}
