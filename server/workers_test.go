package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWorkerPool(t *testing.T) {
	t.Run("past the cap, tasks queue and all run in order of arrival", func(t *testing.T) {
		p := newWorkerPool(1)
		defer p.close()
		release := make(chan struct{})
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			p.submit(taskFunc(func() {
				defer wg.Done()
				if i == 0 {
					<-release
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			}))
		}
		if running, queued := p.stats(); running != 1 || queued != 9 {
			t.Errorf("running %d queued %d, want 1 and 9", running, queued)
		}
		close(release)
		wg.Wait()
		if len(order) != 10 {
			t.Fatalf("%d tasks ran, want 10", len(order))
		}
		for i, v := range order {
			if v != i {
				t.Fatalf("queued tasks ran in order %v", order)
			}
		}
	})
	t.Run("a task that calls runtime.Goexit does not cost the pool its worker", func(t *testing.T) {
		p := newWorkerPool(1)
		defer p.close()
		release := make(chan struct{})
		p.submit(taskFunc(func() {
			<-release
			runtime.Goexit()
		}))
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			p.submit(taskFunc(wg.Done)) // queued behind the one that exits
		}
		close(release)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the tasks queued behind a task that called runtime.Goexit never ran")
		}
		wg.Add(1)
		p.submit(taskFunc(wg.Done))
		wg.Wait()
		if running, queued := p.stats(); running != 1 || queued != 0 {
			t.Errorf("running %d queued %d, want the one worker and nothing queued", running, queued)
		}
		for deadline := time.Now().Add(5 * time.Second); p.busy.Load() != 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // the last task signals just before its worker is done
		}
		if n := p.busy.Load(); n != 0 {
			t.Errorf("%d tasks busy once every task has run", n)
		}
	})
	t.Run("workers are reused and retire when idle", func(t *testing.T) {
		p := newWorkerPool(100)
		defer p.close()
		var ran atomic.Int64
		for round := 0; round < 5; round++ {
			var wg sync.WaitGroup
			for i := 0; i < 10; i++ {
				wg.Add(1)
				// Each task takes a while (a real delay), so that a round's tasks overlap.
				p.submit(taskFunc(func() { ran.Add(1); time.Sleep(time.Millisecond); wg.Done() }))
			}
			wg.Wait()
		}
		// A task signals done just before its worker goes idle, so the next
		// round may start a few new ones; without reuse there would be 50.
		if running, _ := p.stats(); running > 20 {
			t.Errorf("%d workers after 5 rounds of 10 tasks, want them reused", running)
		}
		deadline := time.Now().Add(3 * idleLinger)
		for time.Now().Before(deadline) {
			if running, _ := p.stats(); running == 0 {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		running, _ := p.stats()
		t.Errorf("%d workers still there long after the load stopped", running)
	})
}
