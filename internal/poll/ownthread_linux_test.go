//go:build linux

package poll

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWaitOwnThread: the raw wait reports events as Wait does, returns
// empty at its timeout, is ended by Wake, and gives way to the
// collector (whose stop of the world preempts the waiting goroutine with
// a signal) rather than holding it up to the deadline.
func TestWaitOwnThread(t *testing.T) {
	p, a, b := newWatchedPair(t)
	evs, err := p.WaitOwnThread(nil, time.Second)
	if err != nil || len(evs) != 1 || evs[0].FD != int32(a) || evs[0].Flags&Writable == 0 {
		t.Fatalf("events %+v err %v, want fd %d writable", evs, err, a)
	}

	// A signal (the runtime's preemption of a goroutine that held its P
	// 10 ms) may end a wait early, with no events: a loop waits again.
	start := time.Now()
	deadline := start.Add(30 * time.Millisecond)
	for time.Now().Before(deadline) {
		evs, err = p.WaitOwnThread(nil, max(0, time.Until(deadline)))
		if err != nil || len(evs) != 0 {
			t.Fatalf("events %+v err %v, want none by the deadline", evs, err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("returned after %s, want about the 30ms deadline", d)
	}

	unix.Write(b, []byte("x"))
	evs, err = p.WaitOwnThread(nil, time.Second)
	if err != nil || len(evs) != 1 || evs[0].Flags&Readable == 0 {
		t.Fatalf("events %+v err %v, want readable", evs, err)
	}

	go func() {
		time.Sleep(20 * time.Millisecond) // a real delay: the wait below is under way when Wake comes
		p.Wake()
	}()
	start = time.Now()
	for time.Since(start) < 5*time.Second {
		if evs, _ = p.WaitOwnThread(evs[:0], -1); len(evs) == 0 && time.Since(start) >= 20*time.Millisecond {
			break // the wake-up is consumed, not reported
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Wake ended the wait after %s, want about 20ms", d)
	}

	// One P, held by a goroutine waiting without a deadline: a collection
	// started on another goroutine must still finish, well before the
	// wait would end.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stop, done := make(chan struct{}), make(chan struct{})
	defer func() { close(stop); p.Wake(); <-done }()
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			p.WaitOwnThread(nil, 10*time.Second)
		}
	}()
	gcDone := make(chan time.Duration, 1)
	go func() {
		s := time.Now()
		runtime.GC()
		gcDone <- time.Since(s)
	}()
	select {
	case d := <-gcDone:
		t.Logf("a collection beside a waiting loop took %s", d)
	case <-time.After(5 * time.Second):
		t.Error("a collection did not finish in 5s beside a goroutine waiting in WaitOwnThread")
	}
}
