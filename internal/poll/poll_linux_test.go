//go:build linux

package poll

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func newPair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// newWatchedPair returns a Poller watching a, one end of a socket pair,
// and b, the other end; both close when the test ends.
func newWatchedPair(t *testing.T) (p *Poller, a, b int) {
	t.Helper()
	p, err := New(16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	a, b = newPair(t)
	if err := p.Add(a); err != nil {
		t.Fatal(err)
	}
	return p, a, b
}

func TestPoller(t *testing.T) {
	p, a, b := newWatchedPair(t)

	t.Run("a new socket is reported writable", func(t *testing.T) {
		evs, err := p.Wait(nil, time.Second)
		if err != nil || len(evs) != 1 || evs[0].FD != int32(a) || evs[0].Flags&Writable == 0 {
			t.Fatalf("events %+v err %v, want fd %d writable", evs, err, a)
		}
	})
	t.Run("nothing new times out", func(t *testing.T) {
		start := time.Now()
		evs, err := p.Wait(nil, 20*time.Millisecond)
		if err != nil || len(evs) != 0 {
			t.Fatalf("events %+v err %v, want none", evs, err)
		}
		if d := time.Since(start); d < 15*time.Millisecond {
			t.Errorf("returned after %s, want about the 20ms timeout", d)
		}
	})
	t.Run("data makes it readable", func(t *testing.T) {
		unix.Write(b, []byte("x"))
		evs, err := p.Wait(nil, time.Second)
		if err != nil || len(evs) != 1 || evs[0].Flags&Readable == 0 {
			t.Fatalf("events %+v err %v, want readable", evs, err)
		}
	})
	t.Run("edge-triggered: unread data is not reported again", func(t *testing.T) {
		evs, _ := p.Wait(nil, 10*time.Millisecond)
		if len(evs) != 0 {
			t.Fatalf("events %+v, want none until new data arrives", evs)
		}
	})
	t.Run("Wake interrupts a wait and is not reported", func(t *testing.T) {
		time.AfterFunc(10*time.Millisecond, p.Wake)
		start := time.Now()
		evs, err := p.Wait(nil, 5*time.Second)
		if err != nil || len(evs) != 0 {
			t.Fatalf("events %+v err %v, want none", evs, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Wake took %s to end the wait", d)
		}
	})
	t.Run("the peer closing is a hang-up", func(t *testing.T) {
		unix.Close(b)
		evs, err := p.Wait(nil, time.Second)
		if err != nil || len(evs) != 1 || evs[0].Flags&Hangup == 0 {
			t.Fatalf("events %+v err %v, want hang-up", evs, err)
		}
	})
}

// TestWaitParkedDoesNotAllocate: a loop parks many times a second, so a
// park that returns events must not allocate (it once built a closure
// each time).
func TestWaitParkedDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p, err := New(16)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	events := make([]Event, 0, 16)
	deadline := time.Now().Add(time.Minute)
	p.Wake()
	if _, err := p.WaitParked(events, deadline); err != nil { // the first sets up the runtime's side
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		p.Wake()
		if _, err := p.WaitParked(events[:0], deadline); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("WaitParked allocated %.1f times a call, want 0", allocs)
	}
}
