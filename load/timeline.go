package load

import (
	"time"

	"github.com/gust-http/gust/result"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// interval is one loop's counts for one second of the timeline. The loop
// hands it to the collector and gets the histogram back through its free
// channel, so steady state allocates nothing.
type interval struct {
	loop      int
	second    int
	requests  int64
	errors    int64
	bytesRead int64
	hist      *hdrhistogram.Histogram
	live      *liveCounts // with Config.Live: the second's counts by status and error
}

// collector merges the loops' per-second intervals into the timeline and
// reports progress. It runs on its own goroutine.
type collector struct {
	loops    int
	in       chan interval
	free     []chan *hdrhistogram.Histogram // per loop
	progress func(Progress)
	keepHist bool
	target   func(sec int) float64 // each second's target rate; nil: none
	live     *liveState            // with Config.Live; nil otherwise

	pending  map[int]*secondAgg
	timeline []result.Second
	total    Progress
	done     chan struct{}
}

type secondAgg struct {
	result.Second
	reports int
	hist    *hdrhistogram.Histogram
	live    *liveCounts
}

func newCollector(loops int, progress func(Progress), keepHist bool) *collector {
	c := &collector{
		loops:    loops,
		keepHist: keepHist,
		in:       make(chan interval, loops*8),
		free:     make([]chan *hdrhistogram.Histogram, loops),
		progress: progress,
		pending:  make(map[int]*secondAgg),
		done:     make(chan struct{}),
	}
	for i := range c.free {
		c.free[i] = make(chan *hdrhistogram.Histogram, 4)
	}
	return c
}

// run consumes intervals until in is closed, then finalizes what is left.
func (c *collector) run() {
	defer close(c.done)
	for iv := range c.in {
		agg := c.pending[iv.second]
		if agg == nil {
			agg = &secondAgg{Second: result.Second{Second: iv.second}, hist: result.NewHistogram()}
			c.pending[iv.second] = agg
		}
		agg.Requests += iv.requests
		agg.Errors += iv.errors
		agg.BytesRead += iv.bytesRead
		agg.hist.Merge(iv.hist)
		agg.reports++
		if iv.live != nil {
			c.live.add(agg, iv.loop, iv.live)
		}
		iv.hist.Reset()
		select {
		case c.free[iv.loop] <- iv.hist:
		default: // the loop has spares; let this one go
		}
		if agg.reports == c.loops {
			c.finalize(agg)
		}
	}
	// Loops that stopped early report fewer seconds: finalize in order.
	for len(c.pending) > 0 {
		first := -1
		for s := range c.pending {
			if first < 0 || s < first {
				first = s
			}
		}
		c.finalize(c.pending[first])
	}
}

func (c *collector) finalize(agg *secondAgg) {
	delete(c.pending, agg.Second.Second)
	agg.P50us = agg.hist.ValueAtQuantile(50)
	agg.P99us = agg.hist.ValueAtQuantile(99)
	if c.target != nil {
		agg.TargetRate = c.target(agg.Second.Second)
	}
	if c.keepHist {
		// Encoding only fails for a histogram it cannot represent; ours are
		// all made by NewHistogram.
		agg.Hist, _ = agg.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	}
	c.timeline = append(c.timeline, agg.Second)
	if c.live != nil {
		c.live.second(agg)
	}
	c.total.Requests += agg.Requests
	c.total.Errors += agg.Errors
	c.total.LastRPS = float64(agg.Requests)
	c.total.Elapsed = time.Duration(agg.Second.Second+1) * time.Second
	if c.progress != nil {
		c.progress(c.total)
	}
}

// getHist returns a cleared histogram for loop i's next second.
func (c *collector) getHist(i int) *hdrhistogram.Histogram {
	select {
	case h := <-c.free[i]:
		return h
	default:
		return result.NewHistogram()
	}
}
