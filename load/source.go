package load

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/head"
)

// A Source supplies the requests of a run in place of Config's single
// request (gust replay feeds a log through one). The engine calls Next from
// one goroutine of its own, never concurrently with itself, copies each
// request into a batch and hands the batches to the event loops.
type Source interface {
	// Next fills r with the next request. Any error ends the stream: io.EOF
	// when the source is exhausted, anything else when it failed (a Source
	// keeps its own error for its caller to report). r.Request's and
	// r.Body's slices need only stay valid until the next call.
	Next(r *SourceRequest) error
	// Endpoints names the endpoint ids that Next has handed out:
	// Endpoints()[id] is the name of SourceRequest.Endpoint id. It is
	// called once, after the run, possibly while a Next that blocks on its
	// input is still running, so it must be safe for concurrent use.
	Endpoints() []string
}

// SourceRequest is one request from a Source.
type SourceRequest struct {
	// Request is the request's head: method, target, Host and header
	// fields, Host first, Content-Length included when there is a body.
	// Each session encodes it: HTTP/1.1 writes it as it is, HTTP/2 sends
	// Host as :authority and leaves out the fields it forbids.
	Request RequestHead
	// Body is the request's body.
	Body []byte
	// At is when the request was made, relative to the source's first
	// request. With Config.Speed the engine sends it at At/Speed after the
	// start; otherwise At is not used.
	At time.Duration
	// Endpoint groups requests for result.Result.Endpoints: an id from 0 to
	// MaxEndpoints-1, or -1 for none.
	Endpoint int
	// Head is true for a HEAD request, whose response has no body whatever
	// its Content-Length says.
	Head bool
}

// MaxEndpoints bounds SourceRequest.Endpoint; a request with a larger id
// is counted in the run's totals but in no endpoint.
const MaxEndpoints = 1 << 16

// Batches: the feeder packs requests into batches of up to batchRequests
// requests or about batchBytes bytes, so channel operations and wake-ups
// are per batch, not per request.
const (
	batchRequests = 256
	batchBytes    = 64 << 10
)

// Request metadata kept next to each in-flight send time: the endpoint id
// plus one (0: none) and a HEAD flag.
const (
	metaHead     uint32 = 1 << 31
	metaEndpoint uint32 = metaHead - 1
)

// batch is a run of requests copied from the Source, in the order of
// their intended send times. It goes from the feeder to one loop, which
// takes its requests in order and then returns it for reuse.
type batch struct {
	heads head.Store // reqs[i]'s head and body are the i-th stored
	reqs  []batchReq
	next  int // the next request to take; owned by the loop holding the batch
}

type batchReq struct {
	at   int64 // intended send time on the loops' clock; 0 when untimed
	meta uint32
}

func (b *batch) reset() {
	b.heads.Reset()
	b.reqs = b.reqs[:0]
	b.next = 0
}

// take sets r to view the batch's next request.
func (b *batch) take(r *request) {
	r.body = b.heads.Load(b.next, &r.head)
	r.wire, r.kept = nil, false
}

// feeder runs the Source on its own goroutine and hands batches to the
// loops through one channel that every loop takes from, so a busy loop
// never holds back an idle one.
type feeder struct {
	src   Source
	rate  float64 // Config.Rate: flat schedule, At ignored
	speed float64 // Config.Speed: At scaled

	full    chan *batch // filled batches, oldest first
	free    chan *batch // batches the loops have finished with
	made    int         // batches allocated so far
	maxMade int
	seq     int64 // requests handed out, for the flat schedule

	done atomic.Bool   // no more batches will be sent on full
	stop chan struct{} // closed when the run is over
	exit chan struct{} // closed when run returns

	// wakeMu keeps wake-ups away from closed pollers: the feeder may outlive
	// the loops while a Next blocks on its input.
	wakeMu      sync.Mutex
	loops       []*loop // to wake the hungry ones
	loopsClosed bool
}

func newFeeder(cfg *Config) *feeder {
	n := 4*cfg.Loops + 4
	return &feeder{
		src:     cfg.Source,
		rate:    cfg.Rate,
		speed:   cfg.Speed,
		full:    make(chan *batch, n),
		free:    make(chan *batch, n),
		maxMade: n,
		stop:    make(chan struct{}),
		exit:    make(chan struct{}),
	}
}

// timed reports whether requests have intended send times.
func (f *feeder) timed() bool { return f.rate > 0 || f.speed > 0 }

// run fills batches until the source ends or the run stops.
func (f *feeder) run() {
	defer close(f.exit)
	defer f.finish()
	var r SourceRequest
	for {
		b := f.getBatch()
		if b == nil {
			return
		}
		var err error
		for len(b.reqs) < batchRequests && b.heads.Bytes() < batchBytes {
			r = SourceRequest{Endpoint: -1, Request: RequestHead{Headers: r.Request.Headers[:0]}}
			if err = f.src.Next(&r); err != nil {
				break
			}
			f.add(b, &r)
		}
		if len(b.reqs) > 0 && !f.send(b) {
			return
		}
		if err != nil {
			return
		}
		select {
		case <-f.stop:
			return
		default:
		}
	}
}

// add appends one request to b with its intended time and metadata.
func (f *feeder) add(b *batch, r *SourceRequest) {
	var at int64
	switch {
	case f.rate > 0:
		at = int64(float64(f.seq) * 1e9 / f.rate)
	case f.speed > 0:
		at = int64(float64(r.At) / f.speed)
	}
	f.seq++
	b.heads.Add(&r.Request, r.Body)
	b.reqs = append(b.reqs, batchReq{at: at, meta: requestMeta(r.Endpoint, r.Head)})
}

// requestMeta is the meta of a request of endpoint (-1 or past
// MaxEndpoints: none), with HEAD's flag.
func requestMeta(endpoint int, head bool) uint32 {
	var meta uint32
	if endpoint >= 0 && endpoint < MaxEndpoints {
		meta = uint32(endpoint) + 1
	}
	if head {
		meta |= metaHead
	}
	return meta
}

// getBatch returns an empty batch: a recycled one, a new one while fewer
// than maxMade exist, or nil when the run stops first.
func (f *feeder) getBatch() *batch {
	select {
	case b := <-f.free:
		b.reset()
		return b
	default:
	}
	if f.made < f.maxMade {
		f.made++
		b := &batch{reqs: make([]batchReq, 0, batchRequests)}
		b.heads.Grow(batchBytes + batchBytes/4)
		return b
	}
	select {
	case b := <-f.free:
		b.reset()
		return b
	case <-f.stop:
		return nil
	}
}

// send hands b to the loops and wakes those waiting for work.
func (f *feeder) send(b *batch) bool {
	select {
	case f.full <- b:
	case <-f.stop:
		return false
	}
	f.wake(false)
	return true
}

// wake wakes the loops waiting for a batch, or every loop.
func (f *feeder) wake(all bool) {
	f.wakeMu.Lock()
	defer f.wakeMu.Unlock()
	if f.loopsClosed {
		return
	}
	for _, l := range f.loops {
		if all || l.hungry() {
			l.wake()
		}
	}
}

// closeLoops is called before the loops' pollers close: no wake-ups after it.
func (f *feeder) closeLoops() {
	f.wakeMu.Lock()
	f.loopsClosed = true
	f.wakeMu.Unlock()
}

// finish marks the stream as ended and wakes every loop to notice.
func (f *feeder) finish() {
	f.done.Store(true)
	f.wake(true)
}

// recycle returns a finished batch to the feeder.
func (f *feeder) recycle(b *batch) {
	select {
	case f.free <- b:
	default: // cannot happen: free holds every batch ever made
	}
}
