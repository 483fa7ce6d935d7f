package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load"
)

// DefaultMaxEndpoints is Options.MaxEndpoints' default.
const DefaultMaxEndpoints = 1000

// Options says how to read a log and what to send.
type Options struct {
	Format Format
	// Host is the Host header of every request, normally the target's
	// host:port. Host fields in the log are not sent.
	Host string
	// Header fields are added to every request; a logged field of the same
	// name (in any case) is dropped in their favour.
	Header [][2]string
	// Include, when not empty, keeps only requests whose path and query
	// match one of them; Exclude then drops those that match any.
	Include, Exclude []*regexp.Regexp
	// Methods, when not empty, keeps only requests with these methods.
	Methods []string
	// Passes is how many times the log is read (0 means once); negative
	// reads it again and again until the run stops. More than one pass
	// needs a file, not a stream.
	Passes int
	// Timed sets load.SourceRequest.At from the log's times, for
	// load.Config.Speed. Lines that share a whole-second time (every line
	// of a common log format file) are spread evenly over that second.
	// Lines without a time take the time of the line before. Times that
	// go backwards are held at the latest time so far.
	Timed bool
	// MaxEndpoints bounds the distinct endpoints (default
	// DefaultMaxEndpoints); requests past it count as OtherEndpoint.
	MaxEndpoints int
}

// Stats says what a Source read. Lines, Filtered and Skipped count the
// first pass over the log; Requests counts every pass.
type Stats struct {
	Name         string // the log's file name, or "-" for standard input
	Format       Format // as detected, when Options.Format is Auto
	Lines        int64  // non-blank lines
	Requests     int64  // requests handed out
	Filtered     int64  // lines left out by Include, Exclude and Methods
	Skipped      int64  // lines that could not be parsed
	FirstSkipped []BadLine
	Passes       int // passes over the log begun
}

// BadLine is a line that could not be parsed.
type BadLine struct {
	Line   int64  // from 1
	Reason string // what is wrong, e.g. "time is not RFC 3339 or Unix seconds"
	Text   string // the start of the line
}

// MaxBadLines is how many bad lines Stats.FirstSkipped keeps.
const MaxBadLines = 10

// Source reads requests from a log; it implements load.Source. Next,
// called by the load engine from one goroutine, parses the log as it goes.
// Stats, Endpoints and Err may be called from any goroutine.
type Source struct {
	name   string
	opts   Options
	reopen func() (io.ReadCloser, error) // nil for a stream
	file   io.Closer
	in     input
	pass   int
	format Format

	clf    clfParser
	json   jsonParser
	e      entry
	req    http1.Request
	head   head.Request // req's head, copied into the stage
	digits []byte       // its Content-Length value
	hdrs   [][2]string
	key    []byte
	eps    *endpoints

	stage stage
	clock clock

	lines, requests, filtered, skipped atomic.Int64
	passes                             atomic.Int64

	mu   sync.Mutex // guards bad and err
	bad  []BadLine
	err  error
	done bool // the last pass has ended
}

// Open opens the log at path ("-" for standard input) and reads up to its
// first request, so that a log without any fails here, before the run.
func Open(path string, opts Options) (*Source, error) {
	if path == "-" {
		return NewSource(os.Stdin, "-", opts)
	}
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	f, err := open()
	if err != nil {
		return nil, fmt.Errorf("cannot read the log: %w", err)
	}
	if fi, err := f.(*os.File).Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("cannot read the log: %s is a directory", path)
	}
	s, err := newSource(path, opts, open)
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := s.start(f); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// NewSource reads a log from r in one pass (Options.Passes must be 0 or 1),
// as Open does.
func NewSource(r io.Reader, name string, opts Options) (*Source, error) {
	if opts.Passes != 0 && opts.Passes != 1 {
		return nil, errors.New("a log read from a stream can be replayed once only: give a file to loop over")
	}
	s, err := newSource(name, opts, nil)
	if err != nil {
		return nil, err
	}
	var c io.Closer
	if rc, ok := r.(io.Closer); ok && r != os.Stdin {
		c = rc
	}
	if err := s.start(readCloser{r, c}); err != nil {
		return nil, err
	}
	return s, nil
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

func newSource(name string, opts Options, reopen func() (io.ReadCloser, error)) (*Source, error) {
	if opts.Passes == 0 {
		opts.Passes = 1
	}
	if opts.MaxEndpoints <= 0 {
		opts.MaxEndpoints = DefaultMaxEndpoints
	}
	for _, h := range opts.Header {
		if err := http1.ValidateHeader(h[0], h[1]); err != nil {
			return nil, fmt.Errorf("bad header %q: %v", h[0], err)
		}
	}
	if strings.ContainsAny(opts.Host, "\r\n\x00") {
		return nil, fmt.Errorf("bad host %q", opts.Host)
	}
	for i, m := range opts.Methods {
		if !http1.IsToken(m) {
			return nil, fmt.Errorf("bad method %q: must be a token such as GET or POST", m)
		}
		opts.Methods[i] = strings.ToUpper(m)
	}
	s := &Source{
		name:   name,
		opts:   opts,
		reopen: reopen,
		format: opts.Format,
		clf:    clfParser{combined: opts.Format == Combined},
		eps:    newEndpoints(opts.MaxEndpoints),
		key:    make([]byte, 0, 256),
	}
	return s, nil
}

// start begins the first pass over f and reads until a request is ready.
func (s *Source) start(f io.ReadCloser) error {
	s.file = f
	if err := s.in.reset(f); err != nil {
		return fmt.Errorf("cannot read the log %s: %w", s.name, err)
	}
	s.passes.Store(1)
	for s.stage.emit == s.stage.ready && !s.done {
		s.fill()
	}
	if s.stage.ready > 0 {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return s.noRequests()
}

// noRequests explains why a log gave no request.
func (s *Source) noRequests() error {
	st := s.Stats()
	switch {
	case st.Lines == 0:
		return fmt.Errorf("the log %s is empty", s.name)
	case st.Skipped == st.Lines:
		b := st.FirstSkipped[0]
		return fmt.Errorf("no requests in %s: none of its %d lines could be parsed as %s (line %d: %s)",
			s.name, st.Lines, st.Format, b.Line, b.Reason)
	}
	return fmt.Errorf("no requests in %s: of its %d lines, %d could not be parsed and %d were left out by the filters",
		s.name, st.Lines, st.Skipped, st.Filtered)
}

// Close closes the log file.
func (s *Source) Close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// Next hands out the next request; see load.Source.
func (s *Source) Next(r *load.SourceRequest) error {
	for s.stage.emit == s.stage.ready {
		if s.done {
			if err := s.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		s.fill()
	}
	it := &s.stage.items[s.stage.emit]
	s.stage.emit++
	r.Body = s.stage.heads.Load(s.stage.emit-1, &r.Request)
	r.At = it.at
	r.Endpoint = it.endpoint
	r.Head = it.head
	s.requests.Add(1)
	return nil
}

// Endpoints names the endpoint ids; see load.Source.
func (s *Source) Endpoints() []string { return s.eps.list() }

// Err returns what stopped the log from being read to its end, if anything.
func (s *Source) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stats returns what has been read so far.
func (s *Source) Stats() Stats {
	s.mu.Lock()
	bad := append([]BadLine(nil), s.bad...)
	format := s.format
	s.mu.Unlock()
	return Stats{
		Name:         s.name,
		Format:       format,
		Lines:        s.lines.Load(),
		Requests:     s.requests.Load(),
		Filtered:     s.filtered.Load(),
		Skipped:      s.skipped.Load(),
		FirstSkipped: bad,
		Passes:       int(s.passes.Load()),
	}
}

// fill reads lines until a request is ready or the log has ended.
func (s *Source) fill() {
	s.stage.compact()
	for s.stage.ready == 0 {
		line, err := s.in.next()
		switch {
		case err == nil:
			s.line(line)
		case err == errLineTooLong:
			s.countBad(s.in.n, err, nil)
		case err == io.EOF:
			s.endPass()
			if s.done {
				return
			}
		default:
			s.fail(fmt.Errorf("read %s after line %d: %w", s.name, s.in.n, err))
			return
		}
	}
}

// fail ends the log with err; the requests staged so far still go out.
func (s *Source) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	s.closeGroup()
	s.done = true
}

// endPass finishes a pass and starts the next one, if any.
func (s *Source) endPass() {
	s.closeGroup()
	if s.opts.Passes > 0 && s.pass+1 >= s.opts.Passes || s.reopen == nil {
		s.done = true
		return
	}
	if s.pass == 0 && s.requests.Load()+int64(s.stage.ready) == 0 {
		s.done = true // nothing to repeat
		return
	}
	s.Close()
	f, err := s.reopen()
	if err == nil {
		s.file = f
		err = s.in.reset(f)
	}
	if err != nil {
		s.fail(fmt.Errorf("reopen %s for pass %d: %w", s.name, s.pass+2, err))
		return
	}
	s.pass++
	s.passes.Add(1)
	s.clock.nextPass()
}

// line parses one line and stages its request.
func (s *Source) line(line []byte) {
	if isBlank(line) {
		return
	}
	first := s.pass == 0
	if first {
		s.lines.Add(1)
	}
	detecting := s.format == Auto
	if detecting {
		s.setFormat(detect(line))
	}
	e := &s.e
	e.reset()
	var err error
	if s.format == JSON {
		err = s.json.parse(line, e)
	} else {
		err = s.clf.parse(line, e)
		if detecting && err == nil && s.clf.sawAgent {
			s.setFormat(Combined)
		}
	}
	if err != nil {
		if first {
			s.countBad(s.in.n, err, line)
		}
		return
	}
	if !s.keep(e) {
		if first {
			s.filtered.Add(1)
		}
		return
	}
	if err := s.stageRequest(e); err != nil && first {
		s.countBad(s.in.n, err, line)
	}
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// countBad records an unparsable line.
func (s *Source) countBad(n int64, err error, line []byte) {
	s.skipped.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bad) < MaxBadLines {
		text := line
		if len(text) > 80 {
			text = text[:80]
		}
		s.bad = append(s.bad, BadLine{Line: n, Reason: err.Error(), Text: strings.ToValidUTF8(string(text), "?")})
	}
}
