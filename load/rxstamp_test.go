package load

import (
	"testing"
	"time"
)

// TestRXClockTakesStampsThatCanBeRight: a kernel stamp becomes the
// engine's clock through the turn's offset; none, one after now or one
// over a second old (a clock step) leaves now.
func TestRXClockTakesStampsThatCanBeRight(t *testing.T) {
	e := &engine{base: time.Now()}
	r := rxClock{on: true}
	r.turn(e)
	now := e.now()
	wall := now + r.wallOff // now, on the system clock
	for _, tc := range []struct {
		name string
		wall int64
		want int64
	}{
		{"no stamp", 0, now},
		{"3 ms before now", wall - int64(3*time.Millisecond), now - int64(3*time.Millisecond)},
		{"after now", wall + int64(time.Millisecond), now},
		{"over a second before", wall - int64(2*time.Second), now},
	} {
		if got := r.at(tc.wall, now); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	off := rxClock{}
	off.turn(e)
	if off.wallOff != 0 {
		t.Error("a clock that is off took an offset")
	}
}
