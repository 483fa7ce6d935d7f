package load

import (
	"testing"
	"time"
)

// TestRXClockTakesStampsThatCanBeRight: a kernel stamp becomes the
// engine's clock through the turn's offset, however old; one after the
// loop came to the connection is kept up to the clock's present; none, or
// one in a turn the system clock stepped, leaves now.
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
		{"2 s before now", wall - int64(2*time.Second), now - int64(2*time.Second)},
	} {
		if got := r.at(tc.wall, now, e); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := r.at(wall+int64(time.Millisecond), now, e); got <= now || got > now+int64(time.Millisecond) || got > e.now() {
		t.Errorf("a stamp 1 ms after now: %d; want after now %d, at most 1 ms after, not in the future", got, now)
	}
	r.wallOff -= int64(time.Second) // as if the system clock had jumped a second forward since
	r.turn(e)
	if !r.stepped || r.at(wall, now, e) != now {
		t.Errorf("after a step of the system clock: stepped %v, stamp taken as %d; want now %d", r.stepped, r.at(wall, now, e), now)
	}
	r.turn(e)
	if r.stepped {
		t.Error("a turn after the step still counts as stepped")
	}
	off := rxClock{}
	off.turn(e)
	if off.wallOff != 0 || off.started {
		t.Error("a clock that is off took an offset")
	}
}
