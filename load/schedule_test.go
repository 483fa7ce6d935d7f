package load

import (
	"fmt"
	"testing"
)

// TestEachLoadModelIsOneSchedule checks which schedule each kind of run
// gets, and that only the constant rate staggers its connections.
func TestEachLoadModelIsOneSchedule(t *testing.T) {
	src := func() Source {
		return &listSource{names: []string{"GET /"}, reqs: []SourceRequest{{Request: get("/")}}}
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"as fast as responses come back is the closed schedule", Config{Requests: 1}, "load.closedSchedule"},
		{"a rate is the constant-rate schedule", Config{Requests: 1, Rate: 1000, Connections: 4}, "*load.rateSchedule"},
		{"stages are the stages schedule", Config{Stages: []Stage{{Duration: 1e9, Target: 100}}}, "*load.stagesSchedule"},
		{"a Source at its recorded times is the recorded schedule", Config{Source: src(), Speed: 1}, "*load.recordedSchedule"},
		{"a Source as fast as possible is the recorded schedule too", Config{Source: src()}, "*load.recordedSchedule"},
		{"a Source at a flat rate is the recorded schedule, its times stamped by the feeder", Config{Source: src(), Rate: 100}, "*load.recordedSchedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.URL = "http://127.0.0.1:1/"
			e, err := newEngine(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := e.newSchedule(0)
			if got := fmt.Sprintf("%T", s); got != tt.want {
				t.Fatalf("schedule %s, want %s", got, tt.want)
			}
			c := newConn(e.newSession())
			s.place(c, 3)
			if _, rate := s.(*rateSchedule); rate != (c.next != 0) {
				t.Errorf("the 4th connection starts at %d ns", c.next)
			}
		})
	}
}
