package load

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/result"
)

// RequestTemplate is one request of a data-driven run (gust load
// --targets, --data-csv): its method, target, header fields and body, all
// but the method and the header names possibly with {{column}}
// placeholders filled from a row of Data for each request.
type RequestTemplate struct {
	Method string      // "" is GET
	Target string      // origin-form: "/path?query"
	Header [][2]string // in order; a Host field replaces DataConfig.Host
	Body   string
	// Weight is the request's share under WeightedOrder and RandomOrder,
	// relative to the others'; 0 is 1.
	Weight int
	// Name is the request's endpoint in the report; "" is "METHOD target".
	Name string
	// Where says where the request was read ("targets.txt:3"), for errors.
	Where string
}

// Data is the table a run's placeholders are filled from: one row per
// request.
type Data struct {
	Name    string // the file, for messages
	Columns []string
	Rows    [][]string // each as long as Columns
	// Lines, if set, holds each row's line in the file, for messages.
	Lines []int
}

// Order is how a DataSource picks among its requests, or its rows.
type Order int

// The orders: WeightedOrder interleaves the requests evenly by weight
// (weights 3 and 1 give a, a, b, a, again and again; see evenRound),
// SequentialOrder takes them as listed, and RandomOrder draws
// each at random, by weight (rows: a new shuffle each pass).
const (
	WeightedOrder Order = iota
	SequentialOrder
	RandomOrder
)

// MaxDataEndpoints bounds a DataSource's endpoints: requests past the
// first MaxDataEndpoints-1 share the last, OtherEndpoint, so that a
// targets file of a million lines does not make a million histograms.
const MaxDataEndpoints = 1000

// OtherEndpoint names the endpoint of the requests past MaxDataEndpoints-1.
const OtherEndpoint = "(other)"

// MaxTotalWeight bounds the sum of a DataConfig's weights.
const MaxTotalWeight = 1 << 20

// DataConfig describes a DataSource.
type DataConfig struct {
	Requests []RequestTemplate // at least one
	Order    Order             // how requests are picked
	// Data, if set, fills the placeholders: each request takes the next
	// row, in RowOrder (SequentialOrder or RandomOrder).
	Data     *Data
	RowOrder Order
	// Loop starts the rows again when they are used up; without it the
	// source ends there.
	Loop bool
	Seed uint64 // for RandomOrder
	Host string // the Host field of requests that give none
	// Shard, if set, takes every Shard.Count-th row from the Shard.Index-th
	// (the shards' rows are disjoint and together all of them); each shard
	// picks among the requests by itself.
	Shard result.Shard
}

// DataSource is the Source of a data-driven run. Requests without
// placeholders are built once; the others are filled from the row into
// buffers reused from one request to the next, Content-Length computed
// for each, so that Next allocates nothing once warm.
type DataSource struct {
	reqs  []dataRequest
	names []string // endpoints; nil for a single request
	order Order
	seq   []uint32   // WeightedOrder: a whole round of picks
	cum   []uint64   // RandomOrder: running sums of weights
	rows  [][]string // this shard's rows; nil without Data
	// shuffled: rows are taken in a new random order each pass.
	shuffled bool
	loop     bool
	seed     uint64
	shard    result.Shard

	cur      *dataCursor // Next's
	finished atomic.Bool

	mu    sync.Mutex
	loops []*dataCursor // the loops' own, from pickers
}

// dataRequest is a RequestTemplate compiled.
type dataRequest struct {
	method   string
	target   Template
	names    []string   // header names
	values   []Template // header values
	body     Template
	endpoint int
	isHead   bool
	static   bool
	head     head.Request // static: built once
	bodyB    []byte
}

// NewDataSource compiles cfg's requests against its data's columns: a
// placeholder naming no column, a bad method, target or field, or a cell
// that cannot go where a placeholder puts it is an error, before anything
// is sent.
func NewDataSource(cfg DataConfig) (*DataSource, error) {
	if len(cfg.Requests) == 0 {
		return nil, errors.New("no requests")
	}
	if cfg.Host == "" {
		return nil, errors.New("no Host for the requests")
	}
	if err := cfg.Shard.Check(); err != nil {
		return nil, err
	}
	s := &DataSource{loop: cfg.Loop, shard: cfg.Shard, order: cfg.Order, seed: cfg.Seed}
	var columns []string
	if cfg.Data != nil {
		columns = cfg.Data.Columns
	}
	// Which columns go into targets and into header values: their cells
	// are checked once, here.
	inTarget := make([]bool, len(columns))
	inHeader := make([]bool, len(columns))
	total := 0
	for i := range cfg.Requests {
		t := &cfg.Requests[i]
		q, err := compileRequest(t, cfg.Host, columns)
		if err != nil {
			if t.Where != "" {
				return nil, fmt.Errorf("%s: %w", t.Where, err)
			}
			return nil, err
		}
		for _, c := range q.target.Columns() {
			inTarget[c] = true
		}
		for _, v := range q.values {
			for _, c := range v.Columns() {
				inHeader[c] = true
			}
		}
		q.endpoint = -1
		switch {
		case len(cfg.Requests) == 1:
		case i < MaxDataEndpoints-1 || len(cfg.Requests) == MaxDataEndpoints:
			q.endpoint = i
			name := t.Name
			if name == "" {
				name = q.method + " " + t.Target
			}
			s.names = append(s.names, name)
		default: // the last endpoint holds the rest
			q.endpoint = MaxDataEndpoints - 1
			if i == q.endpoint {
				s.names = append(s.names, OtherEndpoint)
			}
		}
		w := max(t.Weight, 1)
		if t.Weight < 0 {
			return nil, fmt.Errorf("%s: weight %d: must be at least 1", t.Where, t.Weight)
		}
		if total += w; total > MaxTotalWeight {
			return nil, fmt.Errorf("weights add up to more than %d", MaxTotalWeight)
		}
		s.cum = append(s.cum, uint64(total))
		s.reqs = append(s.reqs, q)
	}
	if cfg.Data != nil {
		if err := s.takeRows(cfg.Data, cfg.RowOrder, inTarget, inHeader); err != nil {
			return nil, err
		}
	}
	if cfg.Order == WeightedOrder {
		s.seq = evenRound(cfg.Requests)
	}
	s.cur = s.newCursor(0, 0)
	return s, nil
}

// compileRequest compiles t, building it once if it has no placeholders.
func compileRequest(t *RequestTemplate, host string, columns []string) (dataRequest, error) {
	q := dataRequest{method: t.Method}
	if q.method == "" {
		q.method = "GET"
	}
	if !http1.IsToken(q.method) {
		return q, fmt.Errorf("bad method %q: must be a token such as GET or POST", q.method)
	}
	q.isHead = q.method == "HEAD"
	if len(t.Target) == 0 || t.Target[0] != '/' {
		return q, fmt.Errorf("bad target %q: must start with /", t.Target)
	}
	if i := badTargetByte(t.Target); i >= 0 {
		return q, fmt.Errorf("bad target %q: byte %q at %d cannot go in a request line", t.Target, t.Target[i], i)
	}
	var err error
	if q.target, err = CompileTemplate(t.Target, columns); err != nil {
		return q, err
	}
	static := q.target.Static()
	for _, f := range t.Header {
		if err := http1.ValidateHeader(f[0], f[1]); err != nil {
			return q, fmt.Errorf("bad header %q: %v", f[0], err)
		}
		v, err := CompileTemplate(f[1], columns)
		if err != nil {
			return q, fmt.Errorf("header %s: %w", f[0], err)
		}
		static = static && v.Static()
		q.names = append(q.names, f[0])
		q.values = append(q.values, v)
	}
	if q.body, err = CompileTemplate(t.Body, columns); err != nil {
		return q, fmt.Errorf("body: %w", err)
	}
	q.static = static && q.body.Static()
	if q.static {
		q.bodyB = []byte(t.Body)
		http1.BuildHead(&q.head, &http1.Request{Method: q.method, Target: t.Target, Host: host,
			Header: slices.Clone(t.Header), Body: q.bodyB, UserAgent: "gust"}, nil)
	} else {
		q.head.Host = []byte(host) // kept for fill
	}
	return q, nil
}

// badTargetByte returns the index of the first byte of s that cannot go
// in a request line (a space or a control byte), or -1.
func badTargetByte(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return i
		}
	}
	return -1
}

// takeRows keeps this shard's rows, checking the cells that go into
// targets and header values.
func (s *DataSource) takeRows(d *Data, order Order, inTarget, inHeader []bool) error {
	where := func(i int) string {
		if d.Lines != nil {
			return fmt.Sprintf("%s:%d", d.Name, d.Lines[i])
		}
		return fmt.Sprintf("%s: row %d", d.Name, i+1)
	}
	for i, row := range d.Rows {
		if len(row) != len(d.Columns) {
			return fmt.Errorf("%s: %d fields, the header has %d", where(i), len(row), len(d.Columns))
		}
		for c, cell := range row {
			if inTarget[c] {
				if j := badTargetByte(cell); j >= 0 {
					return fmt.Errorf("%s: column %q has %q at byte %d, which cannot go in a request target (percent-encode it)", where(i), d.Columns[c], cell[j], j)
				}
			}
			if inHeader[c] && http1.ValidateHeader("X", cell) != nil {
				return fmt.Errorf("%s: column %q has a control byte, which cannot go in a header value", where(i), d.Columns[c])
			}
		}
		if !s.shard.Sharded() || i%s.shard.Count == s.shard.Index {
			s.rows = append(s.rows, row)
		}
	}
	if len(s.rows) == 0 {
		if s.shard.Sharded() {
			return fmt.Errorf("%s: %d rows leave none for shard %d of %d", d.Name, len(d.Rows), s.shard.Index, s.shard.Count)
		}
		return fmt.Errorf("%s: no rows", d.Name)
	}
	s.shuffled = order == RandomOrder
	return nil
}

// evenRound returns one round of picks in which each request comes up
// as often as its weight (weights divided by their greatest common
// divisor first), each one's turns spread evenly over the round: the k-th
// turn of a request of weight w falls (k+1/2)/w of the way through, ties
// going to the request listed first. Weights 3, 1, 2 give a c a b c a.
// Sorting the turns costs O(total log total), however many requests.
func evenRound(reqs []RequestTemplate) []uint32 {
	g := 0
	for i := range reqs {
		g = gcd(g, max(reqs[i].Weight, 1))
	}
	type turn struct{ k, i uint32 }
	var turns []turn
	for i := range reqs {
		for k := range max(reqs[i].Weight, 1) / g {
			turns = append(turns, turn{uint32(k), uint32(i)})
		}
	}
	weight := func(i uint32) uint64 { return uint64(max(reqs[i].Weight, 1) / g) }
	slices.SortFunc(turns, func(a, b turn) int {
		// (2a.k+1)/2w(a) against (2b.k+1)/2w(b), without division
		if c := cmp.Compare(uint64(2*a.k+1)*weight(b.i), uint64(2*b.k+1)*weight(a.i)); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	seq := make([]uint32, len(turns))
	for j, t := range turns {
		seq[j] = t.i
	}
	return seq
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Next fills r with the next request: the next row, if any, in the next
// picked request. It returns io.EOF when the rows are used up without
// Loop.
func (s *DataSource) Next(r *SourceRequest) error {
	qi, row, ok := s.cur.next()
	if !ok {
		s.finished.Store(true)
		return io.EOF
	}
	q := &s.reqs[qi]
	r.Endpoint, r.Head = q.endpoint, q.isHead
	if q.static {
		r.Request, r.Body = q.head, q.bodyB
		return nil
	}
	r.Body = s.cur.fill(qi, row)
	r.Request = s.cur.h
	return nil
}

// Endpoints names each request's endpoint; nil for a single request.
func (s *DataSource) Endpoints() []string { return s.names }

// Sharded reports whether the source took shard's share of the rows, so
// that the engine may share the rest of the run out (Config.Shard).
func (s *DataSource) Sharded(shard result.Shard) bool { return s.shard == shard }

// RowsUsed returns how many rows were handed out, and whether the rows
// ran out (without Loop) and so ended the stream.
func (s *DataSource) RowsUsed() (n int64, ranOut bool) {
	n = s.cur.used.Load()
	s.mu.Lock()
	for _, c := range s.loops {
		n += c.used.Load()
	}
	s.mu.Unlock()
	return n, s.finished.Load()
}
