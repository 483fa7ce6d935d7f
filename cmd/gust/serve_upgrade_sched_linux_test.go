package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// threadPolicies counts the threads of process pid by scheduling policy.
func threadPolicies(t *testing.T, pid int) map[uint32]int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint32]int{}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if a, err := unix.SchedGetAttr(tid, 0); err == nil {
			got[a.Policy]++
		}
	}
	return got
}

// wantNoIdleThreads fails the test if a thread of process pid runs in
// SCHED_IDLE.
func wantNoIdleThreads(t *testing.T, pid int) {
	t.Helper()
	if n := threadPolicies(t, pid)[unix.SCHED_IDLE]; n > 0 {
		t.Errorf("pid %d serves with %d threads in SCHED_IDLE", pid, n)
	}
}

// TestStartQuietlyStartsIdleAndLeavesThisProcessAlone starts a shell
// that reports its own policy: SCHED_IDLE (5) for a process that may
// come back from it (root here), its parent's otherwise; no thread of
// this process is left idle.
func TestStartQuietlyStartsIdleAndLeavesThisProcessAlone(t *testing.T) {
	var out []byte
	var env string
	err := startQuietly(func(e string) error {
		env = e
		cmd := exec.Command("sh", "-c", "grep -E '^policy' /proc/self/sched")
		var err error
		out, err = cmd.Output()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	policy := strings.TrimSpace(strings.SplitN(string(out), ":", 2)[1])
	switch {
	case os.Geteuid() == 0 && (env != schedEnv+"=0:0" || policy != "5"):
		t.Errorf("as root: env %q, the child's policy %s; want %s=0:0 and 5 (SCHED_IDLE)", env, policy, schedEnv)
	case env == "" && policy != "0":
		t.Errorf("started without the idle policy, yet the child's is %s", policy)
	}
	wantNoIdleThreads(t, os.Getpid())
}

// TestLeaveStartPolicyRestoresEveryThread puts threads of this process
// in SCHED_IDLE, as a copy started by an upgrade has them, and takes them
// out with leaveStartPolicy.
func TestLeaveStartPolicyRestoresEveryThread(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("leaving SCHED_IDLE needs root or CAP_SYS_NICE")
	}
	const threads = 4
	release := make(chan struct{})
	ready := make(chan error, threads)
	for range threads {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready <- unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0)
			<-release
		}()
	}
	defer close(release)
	for range threads {
		if err := <-ready; err != nil {
			t.Fatal(err)
		}
	}
	if n := threadPolicies(t, os.Getpid())[unix.SCHED_IDLE]; n != threads {
		t.Fatalf("%d threads idle before, want %d", n, threads)
	}
	t.Setenv(schedEnv, "0:0")
	if err := leaveStartPolicy(); err != nil {
		t.Fatal(err)
	}
	wantNoIdleThreads(t, os.Getpid())
	if os.Getenv(schedEnv) != "" {
		t.Errorf("%s still set: the copy's own copies would inherit it", schedEnv)
	}
	t.Setenv(schedEnv, "idle")
	if err := leaveStartPolicy(); err == nil {
		t.Errorf("%s=idle accepted", schedEnv)
	}
}
