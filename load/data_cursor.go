package load

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
)

// dataCursor is one reader of a DataSource: which request comes next,
// which row fills it, and the buffers it is filled into. The source's
// Next has one; with pickers every loop has its own, so that the loops
// pick without sharing anything but the compiled requests and the rows.
type dataCursor struct {
	s     *DataSource
	seqAt int
	rng   *rand.Rand
	perm  []int32 // shuffled rows: this pass's order
	rowAt int
	used  atomic.Int64 // rows handed out

	// The filled request, rebuilt at each fill.
	h      head.Request
	header [][][2]string // per request: its filled fields, handed to BuildHead
	arena  []byte
	marks  []int
	digits []byte
}

// newCursor returns a cursor for the k-th reader (0: Next's). Readers
// past the first start their rows at an even share of the way in and
// shuffle with seeds of their own, so that loops do not all send the
// same row at once.
func (s *DataSource) newCursor(k, of int) *dataCursor {
	c := &dataCursor{s: s,
		rng: rand.New(rand.NewPCG(s.seed+uint64(k), s.seed^0x9e3779b97f4a7c15+uint64(s.shard.Index)))}
	c.header = make([][][2]string, len(s.reqs))
	for i := range s.reqs {
		c.header[i] = make([][2]string, len(s.reqs[i].names))
	}
	if len(s.rows) > 0 {
		c.arena = make([]byte, 0, 4096)
		if of > 0 {
			c.rowAt = k * len(s.rows) / of
		}
	}
	if s.shuffled {
		c.perm = make([]int32, len(s.rows))
		for i := range c.perm {
			c.perm[i] = int32(i)
		}
		c.shuffle()
	}
	if len(s.reqs) > 1 && of > 0 {
		c.seqAt = k * max(len(s.seq), len(s.reqs)) / of % max(len(s.seq), len(s.reqs))
	}
	return c
}

func (c *dataCursor) shuffle() {
	c.rng.Shuffle(len(c.perm), func(i, j int) { c.perm[i], c.perm[j] = c.perm[j], c.perm[i] })
}

// next picks the next request, by its index, and its row (nil without
// rows); ok is false when the rows are used up and the source does not
// loop.
func (c *dataCursor) next() (qi int, row []string, ok bool) {
	s := c.s
	if s.rows != nil {
		if c.rowAt == len(s.rows) {
			if !s.loop {
				return 0, nil, false
			}
			c.rowAt = 0
			if c.perm != nil {
				c.shuffle()
			}
		}
		i := c.rowAt
		if c.perm != nil {
			i = int(c.perm[i])
		}
		row = s.rows[i]
		c.rowAt++
		c.used.Add(1)
	}
	return c.pick(), row, true
}

// pick returns the index of the next request in the source's order.
func (c *dataCursor) pick() int {
	s := c.s
	switch {
	case len(s.reqs) == 1:
		return 0
	case s.order == SequentialOrder:
		i := c.seqAt
		c.seqAt = (i + 1) % len(s.reqs)
		return i
	case s.order == RandomOrder:
		x := c.rng.Uint64N(s.cum[len(s.cum)-1])
		i, _ := slices.BinarySearch(s.cum, x+1)
		return i
	}
	i := s.seq[c.seqAt]
	c.seqAt = (c.seqAt + 1) % len(s.seq)
	return int(i)
}

// fill builds request qi's head for row into c.h and returns its body,
// all viewing c.arena until the next fill.
func (c *dataCursor) fill(qi int, row []string) []byte {
	q := &c.s.reqs[qi]
	a := q.target.Append(c.arena[:0], row)
	c.marks = append(c.marks[:0], len(a))
	for i := range q.values {
		a = q.values[i].Append(a, row)
		c.marks = append(c.marks, len(a))
	}
	a = q.body.Append(a, row)
	c.arena = a // no more appends: the views below stay put
	header := c.header[qi]
	for i := range q.values {
		header[i] = [2]string{q.names[i], view(a[c.marks[i]:c.marks[i+1]])}
	}
	body := a[c.marks[len(q.values)]:]
	c.digits = http1.BuildHead(&c.h, &http1.Request{Method: q.method, Target: view(a[:c.marks[0]]),
		Host: view(q.head.Host), Header: header, Body: body, UserAgent: "gust"}, c.digits[:0])
	return body
}

// view returns b as a string without copying: it lives as long as the
// request it is part of, until the next fill.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
