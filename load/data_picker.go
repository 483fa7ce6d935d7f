package load

import "github.com/gust-http/gust/internal/http1"

// dataPicker hands one loop the requests of a DataSource that never runs
// out (no rows, or rows that loop), picked in the loop as it sends, as
// the run's one request is: no feeder goroutine, no batches, and the
// requests without placeholders serialized once, up front. A request
// with placeholders is filled into the loop's own buffers at each send.
type dataPicker struct {
	c      *dataCursor
	reqs   []request // by index: built once for the static ones
	metas  []uint32  // by index: the endpoint and the HEAD flag
	filled request   // the last filled request, viewing c's buffers
}

// pickers returns a picker for each of n loops, or nil when the source
// can run out (rows without Loop), which the feeder's end of stream
// handles.
func (s *DataSource) pickers(n int) []*dataPicker {
	if !pickable(s) {
		return nil
	}
	ps := make([]*dataPicker, n)
	for k := range ps {
		c := s.newCursor(k, n)
		p := &dataPicker{c: c, reqs: make([]request, len(s.reqs)), metas: make([]uint32, len(s.reqs))}
		for i := range s.reqs {
			q := &s.reqs[i]
			p.metas[i] = requestMeta(q.endpoint, q.isHead)
			if q.static {
				p.reqs[i] = request{head: q.head, body: q.bodyB, kept: true,
					wire: append(http1.AppendHead(nil, &q.head), q.bodyB...)}
			}
		}
		ps[k] = p
	}
	s.mu.Lock()
	for _, p := range ps {
		s.loops = append(s.loops, p.c)
	}
	s.mu.Unlock()
	return ps
}

// pickable reports whether src's requests can be picked in the loops: a
// DataSource that never runs out.
func pickable(src Source) bool {
	s, ok := src.(*DataSource)
	return ok && (s.rows == nil || s.loop)
}

// next returns the loop's next request and its metadata.
func (p *dataPicker) next() (*request, uint32) {
	qi, row, _ := p.c.next() // never runs out: see pickers
	if p.reqs[qi].wire != nil {
		return &p.reqs[qi], p.metas[qi]
	}
	body := p.c.fill(qi, row)
	p.filled = request{head: p.c.h, body: body}
	return &p.filled, p.metas[qi]
}
