package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// workerPool runs tasks on goroutines whose number follows the tasks in
// flight. Idle workers wait a little for the next task and then exit, so
// a burst does not leave goroutines behind; past max, tasks wait in a FIFO
// queue and are never dropped.
type workerPool struct {
	mu      sync.Mutex
	idle    []*worker
	queue   []func()
	qhead   int
	running int
	max     int
	maxIdle int

	busy atomic.Int64 // tasks being run right now
}

type worker struct {
	tasks chan func()
}

// idleLinger is how long an idle worker waits for a task before exiting.
const idleLinger = 2 * time.Second

func newWorkerPool(max int) *workerPool {
	// Idle workers are kept up to the cap and leave after idleLinger, so a
	// steady load reuses its goroutines and a burst's go away.
	return &workerPool{max: max, maxIdle: max}
}

// submit runs task on a worker: an idle one, a new one, or, at the cap,
// the first one to free up.
func (p *workerPool) submit(task func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.tasks <- task
		return
	}
	if p.running < p.max {
		p.running++
		p.mu.Unlock()
		go p.work(task)
		return
	}
	p.queue = append(p.queue, task)
	p.mu.Unlock()
}

func (p *workerPool) work(task func()) {
	var w *worker
	var timer *time.Timer
	for {
		p.busy.Add(1)
		task()
		p.busy.Add(-1)
		task = nil

		p.mu.Lock()
		if p.qhead < len(p.queue) {
			task = p.queue[p.qhead]
			p.queue[p.qhead] = nil
			p.qhead++
			if p.qhead == len(p.queue) {
				p.queue, p.qhead = p.queue[:0], 0
			}
			p.mu.Unlock()
			continue
		}
		if len(p.idle) >= p.maxIdle {
			p.running--
			p.mu.Unlock()
			return
		}
		if w == nil {
			w = &worker{tasks: make(chan func(), 1)}
		}
		p.idle = append(p.idle, w)
		p.mu.Unlock()

		if timer == nil {
			timer = time.NewTimer(idleLinger)
		} else {
			timer.Reset(idleLinger)
		}
		select {
		case task = <-w.tasks:
			timer.Stop()
		case <-timer.C:
			p.mu.Lock()
			if p.removeIdle(w) {
				p.running--
				p.mu.Unlock()
				return
			}
			p.mu.Unlock()
			task = <-w.tasks // submit picked us just as the timer fired
		}
	}
}

func (p *workerPool) removeIdle(w *worker) bool {
	for i, x := range p.idle {
		if x == w {
			last := len(p.idle) - 1
			p.idle[i] = p.idle[last]
			p.idle[last] = nil
			p.idle = p.idle[:last]
			return true
		}
	}
	return false
}

// stats returns the goroutines the pool has and the tasks waiting.
func (p *workerPool) stats() (running, queued int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running, len(p.queue) - p.qhead
}
