package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// workerPool runs tasks on goroutines whose number follows the tasks in
// flight. Idle workers wait on their own channel, most recently used
// first; a reaper retires those idle longer than idleLinger, so a burst
// does not leave goroutines behind. Past max, tasks wait in a FIFO queue
// and are never dropped.
type workerPool struct {
	mu      sync.Mutex
	idle    []*worker // a stack: the last one is the most recently idle
	queue   []task
	qhead   int
	running int
	max     int
	reaping bool
	closed  bool

	busy atomic.Int64 // tasks being run right now
}

type worker struct {
	tasks     chan task // nil means exit
	idleSince time.Time
}

// task is work for the pool: a connection or an HTTP/2 stream to serve
// (each its own task, so that a hand-over allocates no closure), or a
// taskFunc.
type task interface{ run() }

// taskFunc is a func run as a task.
type taskFunc func()

func (f taskFunc) run() { f() }

// idleLinger is how long an idle worker waits for a task before exiting.
const idleLinger = 2 * time.Second

func newWorkerPool(max int) *workerPool {
	return &workerPool{max: max}
}

// submit runs job on a worker: an idle one, a new one, or, at the cap,
// the first one to free up.
func (p *workerPool) submit(job task) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.tasks <- job
		return
	}
	if p.running < p.max {
		p.running++
		if !p.reaping && !p.closed {
			p.reaping = true
			go p.reap()
		}
		p.mu.Unlock()
		go p.work(job)
		return
	}
	p.queue = append(p.queue, job)
	p.mu.Unlock()
}

func (p *workerPool) work(job task) {
	w := &worker{tasks: make(chan task, 1)}
	inTask := false
	defer func() {
		if inTask {
			// The job called runtime.Goexit, which ends this goroutine:
			// another takes its place, going from an empty first job
			// straight to the queue or the idle list.
			p.busy.Add(-1)
			go p.work(taskFunc(func() {}))
		}
	}()
	for job != nil {
		p.busy.Add(1)
		inTask = true
		job.run()
		inTask = false
		p.busy.Add(-1)

		p.mu.Lock()
		if p.qhead < len(p.queue) {
			job = p.queue[p.qhead]
			p.queue[p.qhead] = nil
			p.qhead++
			if p.qhead == len(p.queue) {
				p.queue, p.qhead = p.queue[:0], 0
			} else if p.qhead > 1024 && p.qhead > len(p.queue)/2 {
				// Under lasting overload the queue never drains: reclaim its head.
				n := copy(p.queue, p.queue[p.qhead:])
				clear(p.queue[n:])
				p.queue, p.qhead = p.queue[:n], 0
			}
			p.mu.Unlock()
			continue
		}
		if p.closed {
			p.running--
			p.mu.Unlock()
			return
		}
		w.idleSince = time.Now()
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		job = <-w.tasks
	}
}

// reap retires workers idle for longer than idleLinger, once a second,
// until the pool is closed.
func (p *workerPool) reap() {
	t := time.NewTicker(idleLinger / 2)
	defer t.Stop()
	for range t.C {
		p.mu.Lock()
		if p.closed {
			p.retire(len(p.idle))
			p.mu.Unlock()
			return
		}
		cutoff := time.Now().Add(-idleLinger)
		n := 0
		for n < len(p.idle) && p.idle[n].idleSince.Before(cutoff) {
			n++
		}
		p.retire(n)
		p.mu.Unlock()
	}
}

// retire tells the n longest-idle workers to exit; p.mu is held.
func (p *workerPool) retire(n int) {
	for _, w := range p.idle[:n] {
		w.tasks <- nil
	}
	p.idle = append(p.idle[:0], p.idle[n:]...)
	p.running -= n
}

// close retires the idle workers and stops the reaper; busy ones exit
// when they finish.
func (p *workerPool) close() {
	p.mu.Lock()
	p.closed = true
	p.retire(len(p.idle))
	p.max = 0
	p.mu.Unlock()
}

// stats returns the goroutines the pool has and the tasks waiting.
func (p *workerPool) stats() (running, queued int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running, len(p.queue) - p.qhead
}
