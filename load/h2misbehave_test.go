package load

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/result"
)

// framerConn is one connection of a misbehaving HTTP/2 server made with
// x/net's Framer: the test decides what each frame gets.
type framerConn struct {
	fr      *xhttp2.Framer
	mu      sync.Mutex // writes may come from timers
	hbuf    bytes.Buffer
	henc    *hpack.Encoder
	headers int // request HEADERS frames read
}

// respond answers stream id with status and body.
func (c *framerConn) respond(id uint32, status string, body string, fields ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hbuf.Reset()
	c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: status})
	for i := 0; i+1 < len(fields); i += 2 {
		c.henc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	c.writeBlock(id, c.hbuf.Bytes(), body == "")
	if body != "" {
		c.fr.WriteData(id, true, []byte(body))
	}
}

// writeBlock writes a header block, split into CONTINUATION frames.
func (c *framerConn) writeBlock(id uint32, block []byte, endStream bool) {
	const max = 16384
	first := block[:min(len(block), max)]
	block = block[len(first):]
	c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: endStream, EndHeaders: len(block) == 0})
	for len(block) > 0 {
		frag := block[:min(len(block), max)]
		block = block[len(frag):]
		c.fr.WriteContinuation(id, len(block) == 0, frag)
	}
}

// newFramerServer serves loopback connections: it reads the preface,
// sends settings (none at all when silent), acknowledges the client's, and
// hands every other frame to onFrame, which returns false to close the
// connection.
func newFramerServer(t testing.TB, settings []xhttp2.Setting, silent bool, onFrame func(c *framerConn, f xhttp2.Frame) bool) *rawServer {
	return newRawServer(t, func(nc net.Conn) {
		if _, err := io.ReadFull(nc, make([]byte, len(http2.ClientPreface))); err != nil {
			return
		}
		c := &framerConn{fr: xhttp2.NewFramer(nc, nc)}
		c.fr.MaxHeaderListSize = 1 << 20
		c.henc = hpack.NewEncoder(&c.hbuf)
		if !silent {
			c.mu.Lock()
			c.fr.WriteSettings(settings...)
			c.mu.Unlock()
		}
		for {
			f, err := c.fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *xhttp2.SettingsFrame:
				if !f.IsAck() && !silent {
					c.mu.Lock()
					c.fr.WriteSettingsAck()
					c.mu.Unlock()
				}
				continue
			case *xhttp2.HeadersFrame:
				c.headers++
			}
			if !onFrame(c, f) {
				return
			}
		}
	})
}

// requestEnd reports whether f ends a request: its HEADERS or last DATA.
func requestEnd(f xhttp2.Frame) (uint32, bool) {
	switch f := f.(type) {
	case *xhttp2.HeadersFrame:
		return f.StreamID, f.StreamEnded()
	case *xhttp2.DataFrame:
		return f.StreamID, f.StreamEnded()
	}
	return 0, false
}

// TestHTTP2MisbehavingServers: whatever the server does wrong, the run
// ends in bounded time with its errors classified and a result to report.
func TestHTTP2MisbehavingServers(t *testing.T) {
	var concurrent, peak atomic.Int64
	tests := []struct {
		name     string
		settings []xhttp2.Setting
		silent   bool // no SETTINGS at all
		onFrame  func(c *framerConn, f xhttp2.Frame) bool
		cfg      Config
		check    func(t *testing.T, r *result.Result)
	}{
		{
			name: "GOAWAY mid-run: streams above its last id retried on a new connection",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				id, end := requestEnd(f)
				switch {
				case !end:
				case c.headers < 5:
					c.respond(id, "200", "ok")
				case c.headers == 5: // this one and later ones were never processed
					c.mu.Lock()
					c.fr.WriteGoAway(id-2, xhttp2.ErrCodeNo, nil)
					c.mu.Unlock()
				}
				return true
			},
			cfg: Config{Connections: 2, Streams: 4, Requests: 100},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 100 || r.ErrorCount() != 0 {
					t.Errorf("requests %d, %s; want 100 answered, no errors", r.Requests, h2Errors(r))
				}
				if r.HTTP2.GoAways["NO_ERROR"] == 0 || r.HTTP2.Retried == 0 || r.Reconnects == 0 {
					t.Errorf("goaways %v, retried %d, reconnects %d; want GOAWAYs counted and requests retried",
						r.HTTP2.GoAways, r.HTTP2.Retried, r.Reconnects)
				}
			},
		},
		{
			name: "RST_STREAM on every other request: counted with its code, the connection goes on",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					if c.headers%2 == 0 {
						c.mu.Lock()
						c.fr.WriteRSTStream(id, xhttp2.ErrCodeInternal)
						c.mu.Unlock()
					} else {
						c.respond(id, "200", "ok")
					}
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 1, Requests: 100},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 50 || r.Errors[result.ErrStreamReset] != 50 || r.HTTP2.Resets["INTERNAL_ERROR"] != 50 {
					t.Errorf("requests %d, %s; want 50 answered and 50 INTERNAL_ERROR resets", r.Requests, h2Errors(r))
				}
				if r.Connects != 1 {
					t.Errorf("%d connections, want 1: a stream reset keeps the connection", r.Connects)
				}
			},
		},
		{
			name:     "SETTINGS_MAX_CONCURRENT_STREAMS 1: never two streams at once, whatever -m asks",
			settings: []xhttp2.Setting{{ID: xhttp2.SettingMaxConcurrentStreams, Val: 1}},
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					n := concurrent.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.AfterFunc(time.Millisecond, func() {
						concurrent.Add(-1)
						c.respond(id, "200", "ok")
					})
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 10, Requests: 100},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 100 || r.ErrorCount() != 0 {
					t.Errorf("requests %d, %s; want 100, no errors", r.Requests, h2Errors(r))
				}
				if p := peak.Load(); p != 1 {
					t.Errorf("%d streams open at once, want 1", p)
				}
			},
		},
		{
			name:     "a zero window that never opens: request bodies stall, counted as flow_stall",
			settings: []xhttp2.Setting{{ID: xhttp2.SettingInitialWindowSize, Val: 0}},
			onFrame:  func(c *framerConn, f xhttp2.Frame) bool { return true },
			cfg:      Config{Connections: 2, Streams: 2, Method: "POST", Body: []byte("a body that never moves"), Duration: 1500 * time.Millisecond, Timeout: 300 * time.Millisecond},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 0 || r.Errors[result.ErrFlowStall] == 0 {
					t.Errorf("requests %d, %s; want none answered and flow stalls", r.Requests, h2Errors(r))
				}
			},
		},
		{
			name: "an invalid frame (PING of 7 bytes): a protocol error, the connection replaced",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					if c.headers == 3 {
						c.mu.Lock()
						c.fr.WriteRawFrame(xhttp2.FramePing, 0, 0, make([]byte, 7))
						c.mu.Unlock()
						return true
					}
					c.respond(id, "200", "ok")
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 1, Requests: 20},
			check: func(t *testing.T, r *result.Result) {
				if r.Errors[result.ErrProtocol] == 0 || r.Requests == 0 || r.Requests+r.ErrorCount() != 20 {
					t.Errorf("requests %d, %s; want protocol errors and the rest answered", r.Requests, h2Errors(r))
				}
				if r.Reconnects == 0 {
					t.Error("no reconnect after a connection error")
				}
			},
		},
		{
			name: "an oversized header block (200 KB over CONTINUATIONs): the stream failed, the connection goes on",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					if c.headers%2 == 0 {
						var fields []string
						for i := range 25 {
							fields = append(fields, "x-big-"+string(rune('a'+i)), strings.Repeat("v", 8<<10))
						}
						c.respond(id, "200", "ok", fields...)
						return true
					}
					c.respond(id, "200", "ok")
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 1, Requests: 20},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 10 || r.Errors[result.ErrProtocol] != 10 {
					t.Errorf("requests %d, %s; want 10 answered, 10 protocol errors", r.Requests, h2Errors(r))
				}
			},
		},
		{
			name: "GOAWAY with an error code, then the connection closed: unanswered streams counted as goaway",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					if c.headers == 2 {
						c.mu.Lock()
						c.fr.WriteGoAway(id, xhttp2.ErrCodeEnhanceYourCalm, []byte("calm down"))
						c.mu.Unlock()
						return false
					}
					c.respond(id, "200", "ok")
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 1, Requests: 10},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 5 || r.Errors[result.ErrGoAway] != 5 || r.HTTP2.GoAways["ENHANCE_YOUR_CALM"] != 5 {
					t.Errorf("requests %d, %s; want 5 answered, 5 lost to ENHANCE_YOUR_CALM GOAWAYs", r.Requests, h2Errors(r))
				}
			},
		},
		{
			name: "a stream the server never answers: reset after Timeout, the others answered meanwhile",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end && id != 3 {
					c.respond(id, "200", "ok")
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 4, Requests: 200, Timeout: 300 * time.Millisecond},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 199 || r.Errors[result.ErrReadTimeout] != 1 || r.Connects != 1 {
					t.Errorf("requests %d, %s, connections %d; want 199 answered, 1 read timeout, one connection", r.Requests, h2Errors(r), r.Connects)
				}
			},
		},
		{
			name:    "a server that never sends its SETTINGS: a protocol error after Timeout, and a run of -n ends",
			silent:  true,
			onFrame: func(c *framerConn, f xhttp2.Frame) bool { return true },
			cfg:     Config{Connections: 1, Streams: 1, Requests: 3, Timeout: 200 * time.Millisecond, Duration: time.Minute},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 0 || r.Errors[result.ErrProtocol] != 3 {
					t.Errorf("requests %d, %s; want 3 protocol errors", r.Requests, h2Errors(r))
				}
			},
		},
		{
			name:   "a server whose preface is not SETTINGS: protocol errors, and a run of -n ends",
			silent: true,
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if _, ok := f.(*xhttp2.WindowUpdateFrame); ok {
					c.mu.Lock()
					c.fr.WriteSettingsAck()
					c.mu.Unlock()
				}
				return true
			},
			cfg: Config{Connections: 2, Streams: 1, Requests: 10, Duration: time.Minute},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 0 || r.Errors[result.ErrProtocol] < 10 {
					t.Errorf("requests %d, %s; want at least 10 protocol errors", r.Requests, h2Errors(r))
				}
			},
		},
		{
			name: "a header block HPACK cannot decode: a compression error",
			onFrame: func(c *framerConn, f xhttp2.Frame) bool {
				if id, end := requestEnd(f); end {
					c.mu.Lock()
					c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, EndHeaders: true, EndStream: true})
					c.mu.Unlock()
				}
				return true
			},
			cfg: Config{Connections: 1, Streams: 1, Requests: 5},
			check: func(t *testing.T, r *result.Result) {
				if r.Requests != 0 || r.Errors[result.ErrCompression] != 5 {
					t.Errorf("requests %d, %s; want 5 compression errors", r.Requests, h2Errors(r))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFramerServer(t, tt.settings, tt.silent, tt.onFrame)
			cfg := tt.cfg
			cfg.URL, cfg.HTTP2 = srv.url(), true
			if cfg.Timeout == 0 {
				cfg.Timeout = 2 * time.Second
			}
			if cfg.Duration == 0 {
				cfg.Duration = 5 * time.Second
			}
			start := time.Now()
			res := run(t, cfg)
			if took := time.Since(start); took > cfg.Duration+2*time.Second {
				t.Errorf("the run took %s", took)
			}
			if res.HTTP2 == nil {
				t.Fatal("no HTTP/2 result")
			}
			tt.check(t, res)
		})
	}
}

// TestHTTP2RetriesEndWhenTheServerIsGone: requests a GOAWAY sent back wait
// for a new connection; when the server is gone for good they are counted
// lost, and a run of -n requests still ends.
func TestHTTP2RetriesEndWhenTheServerIsGone(t *testing.T) {
	var once sync.Once
	gone := make(chan struct{})
	srv := newFramerServer(t, nil, false, func(c *framerConn, f xhttp2.Frame) bool {
		id, end := requestEnd(f)
		if !end {
			return true
		}
		if c.headers < 3 {
			c.respond(id, "200", "ok")
			return true
		}
		c.mu.Lock()
		c.fr.WriteGoAway(1, xhttp2.ErrCodeNo, nil)
		c.mu.Unlock()
		once.Do(func() { close(gone) })
		return false
	})
	go func() {
		<-gone
		srv.ln.Close()
	}()
	start := time.Now()
	res := run(t, Config{URL: srv.url(), HTTP2: true, Connections: 1, Streams: 4, Requests: 10, Timeout: 500 * time.Millisecond})
	if took := time.Since(start); took > 15*time.Second { // failed connects back off, up to 1 s each
		t.Errorf("the run took %s", took)
	}
	if res.HTTP2.Retried == 0 || res.Errors[result.ErrGoAway] == 0 || res.Errors[result.ErrConnectRefused] == 0 {
		t.Errorf("requests %d, %s; want retries, then goaway and connect_refused errors", res.Requests, h2Errors(res))
	}
}
