package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A copy started by an upgrade spends its first tens of milliseconds in
// the runtime's and its packages' start-up, on the very cores the old
// process serves from (it inherits their affinity). Started in the
// SCHED_IDLE policy it runs only while those cores have nothing else to
// do, so the old process's requests do not wait behind it; it takes its
// predecessor's policy back just before it serves (leaveStartPolicy).
// Only a process that may raise its priority again (root, or one with
// CAP_SYS_NICE) starts its copies so: it tries on its own thread first.

// startQuietly runs start, which starts a process, in the SCHED_IDLE
// policy when this process may undo that, and returns the environment
// entry the process needs to leave it (empty if it was not started so).
// The policy is set on a thread locked to one goroutine (threads the
// runtime starts meanwhile come from its template thread, not this one)
// and taken back before the goroutine ends; were that refused, the
// goroutine would keep the thread to itself for good, so that no other
// runs idle.
func startQuietly(start func(env string) error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		was, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- start("")
			return
		}
		idle := *was
		idle.Size = unix.SizeofSchedAttr
		idle.Policy, idle.Nice = unix.SCHED_IDLE, 0
		back := *was
		back.Size = unix.SizeofSchedAttr
		// Idle and back again shows the copy, with the same rights, can
		// come back; then idle for the start.
		if unix.SchedSetAttr(0, &idle, 0) != nil {
			runtime.UnlockOSThread()
			errc <- start("")
			return
		}
		if unix.SchedSetAttr(0, &back, 0) != nil {
			go func() { errc <- start("") }() // from another thread: this one stays idle
			select {}
		}
		if unix.SchedSetAttr(0, &idle, 0) != nil {
			runtime.UnlockOSThread()
			errc <- start("")
			return
		}
		errc <- start(schedEnv + "=" + strconv.Itoa(int(was.Policy)) + ":" + strconv.Itoa(int(was.Nice)))
		if unix.SchedSetAttr(0, &back, 0) != nil {
			select {}
		}
		runtime.UnlockOSThread()
	}()
	return <-errc
}

// leaveStartPolicy gives every thread of this process the policy schedEnv
// names, if it is set: the copy is about to serve. Threads started while
// it works inherit from threads already done or not yet, so it goes over
// them until a pass changes none.
func leaveStartPolicy() error {
	v := os.Getenv(schedEnv)
	if v == "" {
		return nil
	}
	os.Unsetenv(schedEnv)
	p, n, ok := strings.Cut(v, ":")
	policy, err1 := strconv.ParseUint(p, 10, 32)
	nice, err2 := strconv.ParseInt(n, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("%s=%q: want policy:nice", schedEnv, v)
	}
	want := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: uint32(policy), Nice: int32(nice)}
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		changed := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			got, err := unix.SchedGetAttr(tid, 0)
			if err != nil || (got.Policy == want.Policy && got.Nice == want.Nice) {
				continue // gone, or done
			}
			if err := unix.SchedSetAttr(tid, &want, 0); err != nil {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
			changed++
		}
		if changed == 0 {
			return nil
		}
	}
	return nil
}
