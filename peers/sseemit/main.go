// Command sseemit is an HTTP/2 (h2c, prior knowledge) Server-Sent Events
// source made to be cheap per event, the truth a load generator's event
// timings are checked against at rates one general-purpose server core
// does not reach: a goroutine per connection reads its frames, and a
// clock per connection writes, at each tick, the next event of every
// stream the connection carries, all framed into one buffer and one
// write. GET /events?n=N&interval=D&stamp=1 on -addr answers as gust
// serve's /events does (event i is "id: i" and "data: tick i T", T the
// send time in Unix nanoseconds; n=0 streams until the client leaves);
// the streams of one connection share the first one's interval. The
// send times are kept: GET /events/truth on -truth-addr (HTTP/1.1) gives
// the time from each request to its first event and between events, in
// gust serve's JSON (with reset=1, afresh from then on).
//
// Loopback only: it is a measuring instrument, not a server.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gust-http/gust/internal/sse"
)

// maxStreams is the SETTINGS_MAX_CONCURRENT_STREAMS sent, gust serve's.
const maxStreams = 100

func main() {
	addr := flag.String("addr", "127.0.0.1:19760", "host:port for h2c event streams")
	truthAddr := flag.String("truth-addr", "127.0.0.1:19761", "host:port for GET /events/truth (HTTP/1.1)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("sseemit: %v", err)
	}
	tln, err := net.Listen("tcp", *truthAddr)
	if err != nil {
		log.Fatalf("sseemit: %v", err)
	}
	t := newTruth()
	go http.Serve(tln, t)
	fmt.Fprintf(os.Stderr, "sseemit: h2c events on %s, truth on http://%s/events/truth\n", ln.Addr(), tln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatalf("sseemit: %v", err)
		}
		go serve(c, t)
	}
}

// stream is one event stream of a connection.
type stream struct {
	id      uint32
	n, next int // events asked for (0: no end) and the next one's number
	stamp   bool
	window  int64 // the client's window for this stream
	begun   time.Time
	last    time.Time // the last event's send time
	started bool      // an event was sent
}

// conn is one client connection: its frames are read by serve, its events
// written by its clock; mu guards the writer and the streams.
type conn struct {
	nc       net.Conn
	truth    *truth
	mu       sync.Mutex
	bw       *bufio.Writer
	fr       *http2.Framer
	henc     *hpack.Encoder
	hbuf     bytes.Buffer
	streams  []*stream
	window   int64 // the client's connection window
	initWin  int64 // the client's SETTINGS_INITIAL_WINDOW_SIZE
	interval time.Duration
	clock    bool // the clock runs
	closed   bool
	event    []byte
}

// serve reads a connection's frames until it ends.
func serve(nc net.Conn, t *truth) {
	defer nc.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(nc, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	c := &conn{nc: nc, truth: t, window: 65535, initWin: 65535}
	c.bw = bufio.NewWriterSize(nc, 64<<10)
	c.fr = http2.NewFramer(c.bw, bufio.NewReader(nc))
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.henc = hpack.NewEncoder(&c.hbuf)
	c.mu.Lock()
	c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: maxStreams})
	c.bw.Flush()
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
	}()
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		if err := c.handle(f); err != nil {
			return
		}
	}
}

// handle acts on one frame read.
func (c *conn) handle(f http2.Frame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.bw.Flush()
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
			for _, s := range c.streams {
				s.window += int64(v) - c.initWin
			}
			c.initWin = int64(v)
		}
		return c.fr.WriteSettingsAck()
	case *http2.WindowUpdateFrame:
		if f.StreamID == 0 {
			c.window += int64(f.Increment)
		} else if s := c.find(f.StreamID); s != nil {
			s.window += int64(f.Increment)
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			return c.fr.WritePing(true, f.Data)
		}
	case *http2.RSTStreamFrame:
		c.drop(f.StreamID)
	case *http2.GoAwayFrame:
		return errors.New("goaway")
	case *http2.MetaHeadersFrame:
		return c.request(f)
	}
	return nil
}

// request answers a stream's request: 200 and the events to come, or 400.
func (c *conn) request(f *http2.MetaHeadersFrame) error {
	begun := time.Now()
	u, err := url.Parse(f.PseudoValue("path"))
	q, interval, n, stamp := url.Values(nil), time.Duration(0), 0, false
	if err == nil {
		q = u.Query()
		interval, err = time.ParseDuration(q.Get("interval"))
	}
	if err == nil {
		n, err = strconv.Atoi(q.Get("n"))
	}
	switch {
	case err != nil || u.Path != "/events" || interval <= 0 || n < 0:
		err = fmt.Errorf("GET /events?n=N&interval=D[&stamp=1], D above 0")
	case c.interval != 0 && interval != c.interval:
		err = fmt.Errorf("this connection's streams come every %v", c.interval)
	}
	stamp = q.Get("stamp") == "1"
	if err != nil {
		return c.answer(f.StreamID, "400", []byte(err.Error()+"\n"))
	}
	c.interval = interval
	c.streams = append(c.streams, &stream{id: f.StreamID, n: n, next: 1, stamp: stamp, window: c.initWin, begun: begun})
	c.truth.begin()
	if err := c.header(f.StreamID, "200", "text/event-stream", false); err != nil {
		return err
	}
	if !c.clock {
		c.clock = true
		go c.run(interval) // a connection's interval does not change
	}
	return nil
}

// answer sends a whole short response.
func (c *conn) answer(id uint32, status string, body []byte) error {
	if err := c.header(id, status, "text/plain", false); err != nil {
		return err
	}
	return c.fr.WriteData(id, true, body)
}

// header sends a response's HEADERS.
func (c *conn) header(id uint32, status, ctype string, end bool) error {
	c.hbuf.Reset()
	c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: status})
	c.henc.WriteField(hpack.HeaderField{Name: "content-type", Value: ctype})
	c.henc.WriteField(hpack.HeaderField{Name: "cache-control", Value: "no-cache"})
	return c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true, EndStream: end})
}

// find returns stream id, nil if it is not open.
func (c *conn) find(id uint32) *stream {
	for _, s := range c.streams {
		if s.id == id {
			return s
		}
	}
	return nil
}

// drop forgets stream id.
func (c *conn) drop(id uint32) {
	for i, s := range c.streams {
		if s.id == id {
			c.streams = append(c.streams[:i], c.streams[i+1:]...)
			return
		}
	}
}

// run is the connection's clock: at each tick the next event of every
// stream, in one write; the next tick an interval after this one's write,
// so that no two events of a stream go less than an interval apart. It
// ends with the connection.
func (c *conn) run(interval time.Duration) {
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for range timer.C {
		if !c.tick() {
			return
		}
		timer.Reset(interval)
	}
}

// tick writes one event of every stream whose windows let it; a stream
// they hold back waits for the next tick. It reports whether the
// connection is still there.
func (c *conn) tick() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	rec := c.truth.recorder()
	live := c.streams[:0]
	for _, s := range c.streams {
		var sent int64
		now := time.Now()
		if s.stamp {
			sent = now.UnixNano()
		}
		c.event = sse.AppendTick(c.event[:0], s.next, sent)
		if int64(len(c.event)) > min(c.window, s.window) {
			live = append(live, s)
			continue
		}
		end := s.n != 0 && s.next == s.n
		if c.fr.WriteData(s.id, end, c.event) != nil {
			c.truth.done(rec)
			return false
		}
		c.window -= int64(len(c.event))
		s.window -= int64(len(c.event))
		if s.stamp {
			rec.sent(s, now)
		}
		s.next++
		if !end {
			live = append(live, s)
		}
	}
	clear(c.streams[len(live):])
	c.streams = live
	c.truth.done(rec)
	return c.bw.Flush() == nil
}
