//go:build linux

package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Peer is a scripted HTTP/2 client on a real socket, made with x/net's
// Framer: the attacker of these tests.
type h2Peer struct {
	t    *testing.T
	c    net.Conn
	fr   *xhttp2.Framer
	hbuf bytes.Buffer
	henc *hpack.Encoder
}

func dialH2(t *testing.T, s *Server, settings ...xhttp2.Setting) *h2Peer {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := &h2Peer{t: t, c: c}
	p.fr = xhttp2.NewFramer(c, bufio.NewReader(c))
	p.fr.SetMaxReadFrameSize(1 << 20)
	p.henc = hpack.NewEncoder(&p.hbuf)
	io.WriteString(c, xhttp2.ClientPreface)
	p.fr.WriteSettings(settings...)
	return p
}

// block encodes a request header block for path.
func (p *h2Peer) block(path string, extra ...string) []byte {
	p.hbuf.Reset()
	fields := append([]string{":method", "GET", ":scheme", "http", ":authority", "gust.test", ":path", path}, extra...)
	for i := 0; i < len(fields); i += 2 {
		p.henc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(p.hbuf.Bytes())
}

func (p *h2Peer) get(id uint32, path string) error {
	return p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(path), EndStream: true, EndHeaders: true})
}

// until reads frames until want says stop, the connection ends (io.EOF
// or a reset, returned), or d passes.
func (p *h2Peer) until(d time.Duration, want func(xhttp2.Frame) bool) (xhttp2.Frame, error) {
	p.c.SetReadDeadline(time.Now().Add(d))
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		if want(f) {
			return f, nil
		}
	}
}

// goAwayThenClose reads until the server's GOAWAY and then the end of the
// connection; it returns the GOAWAY's code.
func (p *h2Peer) goAwayThenClose(d time.Duration) (xhttp2.ErrCode, error) {
	f, err := p.until(d, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.GoAwayFrame); return ok })
	if err != nil {
		return 0, err
	}
	code := f.(*xhttp2.GoAwayFrame).ErrCode
	if _, err := p.until(d, func(xhttp2.Frame) bool { return false }); !isClosed(err) {
		return code, errors.New("the connection stayed open after GOAWAY: " + err.Error())
	}
	return code, nil
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || err != nil && (strings.Contains(err.Error(), "reset") || strings.Contains(err.Error(), "closed"))
}

// stillServes checks that the server answers a fresh client.
func stillServes(t *testing.T, s *Server) {
	t.Helper()
	resp, body := h2Get(t, h2cClient(t), "http://"+s.Addr().String()+"/")
	if resp.StatusCode != 200 || body != "hello" {
		t.Errorf("after the attack: %d %q", resp.StatusCode, body)
	}
}

func TestH2Attacks(t *testing.T) {
	var started atomic.Int64
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	handler := HandlerFunc(func(c *Ctx) {
		started.Add(1)
		switch string(c.Path()) {
		case "/big":
			c.Write(bytes.Repeat([]byte("z"), 200_000))
		case "/wait":
			select {
			case <-release:
			case <-time.After(5 * time.Second):
			}
		default:
			c.WriteString("hello")
		}
	})
	cfg := Config{H2C: true, WriteTimeout: 500 * time.Millisecond, IdleTimeout: 400 * time.Millisecond, ReadTimeout: 600 * time.Millisecond,
		ErrorLog: discardLog(),
		HTTP2:    HTTP2Config{MaxConcurrentStreams: 4, MaxResets: 50}}
	s := start(t, handler, cfg)

	tests := []struct {
		name string
		run  func(t *testing.T, p *h2Peer)
	}{
		{"Rapid Reset: streams opened and reset at once end the connection with ENHANCE_YOUR_CALM", func(t *testing.T, p *h2Peer) {
			before := started.Load()
			go func() {
				for id := uint32(1); id < 2000; id += 2 {
					p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block("/wait"), EndStream: true, EndHeaders: true})
					if p.fr.WriteRSTStream(id, xhttp2.ErrCodeCancel) != nil {
						return
					}
				}
			}()
			code, err := p.goAwayThenClose(5 * time.Second)
			if err != nil || code != xhttp2.ErrCodeEnhanceYourCalm {
				t.Fatalf("GOAWAY %v, %v; want ENHANCE_YOUR_CALM and a close", code, err)
			}
			if n := started.Load() - before; n > 100 {
				t.Errorf("%d handlers started for 1000 streams reset at once", n)
			}
		}},
		{"CONTINUATION flood ends the connection", func(t *testing.T, p *h2Peer) {
			go func() {
				p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, BlockFragment: p.block("/"), EndStream: true})
				for range 100_000 {
					if p.fr.WriteContinuation(1, false, []byte{0x40, 1, 'x', 1, 'y'}) != nil {
						return
					}
				}
			}()
			code, err := p.goAwayThenClose(5 * time.Second)
			if err != nil || code == xhttp2.ErrCodeNo {
				t.Fatalf("GOAWAY %v, %v; want an error code and a close", code, err)
			}
		}},
		{"HPACK bomb: a header list past the limit is answered 431, the connection lives", func(t *testing.T, p *h2Peer) {
			p.hbuf.Reset()
			for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}} {
				p.henc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
			}
			p.henc.WriteField(hpack.HeaderField{Name: "x-bomb", Value: strings.Repeat("b", 4000)}) // into the table
			for range 2000 {
				p.henc.WriteField(hpack.HeaderField{Name: "x-bomb", Value: strings.Repeat("b", 4000)}) // one byte each
			}
			frag := bytes.Clone(p.hbuf.Bytes())
			if len(frag) > 16_000 {
				t.Fatalf("the bomb is %d bytes compressed", len(frag))
			}
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, BlockFragment: frag, EndStream: true, EndHeaders: true})
			f, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.HeadersFrame); return ok })
			if err != nil {
				t.Fatal(err)
			}
			if f.Header().StreamID != 1 {
				t.Fatalf("headers on stream %d", f.Header().StreamID)
			}
			p.get(3, "/")
			if _, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { return f.Header().StreamID == 3 }); err != nil {
				t.Fatalf("the next stream: %v", err)
			}
		}},
		{"SETTINGS flood from a client that does not read ends the connection", func(t *testing.T, p *h2Peer) {
			testFloodEnds(t, p, func() error { return p.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingEnablePush, Val: 0}) })
		}},
		{"PING flood from a client that does not read ends the connection", func(t *testing.T, p *h2Peer) {
			testFloodEnds(t, p, func() error { return p.fr.WritePing(false, [8]byte{1}) })
		}},
		{"a zero window slow reader's stream is reset at WriteTimeout", func(t *testing.T, p *h2Peer) {
			p.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 0})
			p.get(1, "/big")
			start := time.Now()
			f, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.RSTStreamFrame); return ok })
			if err != nil {
				t.Fatal(err)
			}
			if f.Header().StreamID != 1 || time.Since(start) < 400*time.Millisecond {
				t.Errorf("RST_STREAM on %d after %v", f.Header().StreamID, time.Since(start))
			}
		}},
		{"streams beyond MaxConcurrentStreams are refused", func(t *testing.T, p *h2Peer) {
			for id := uint32(1); id <= 9; id += 2 {
				p.get(id, "/wait")
			}
			f, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.RSTStreamFrame); return ok })
			if err != nil {
				t.Fatal(err)
			}
			if rst := f.(*xhttp2.RSTStreamFrame); rst.StreamID != 9 || rst.ErrCode != xhttp2.ErrCodeRefusedStream {
				t.Errorf("got %v, want REFUSED_STREAM on stream 9", rst)
			}
		}},
		{"a request body that does not come is reset at ReadTimeout", func(t *testing.T, p *h2Peer) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, BlockFragment: p.block("/", "content-length", "10"), EndHeaders: true})
			p.fr.WriteData(1, false, []byte("abc"))
			start := time.Now()
			f, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.RSTStreamFrame); return ok })
			if err != nil {
				t.Fatal(err)
			}
			if f.Header().StreamID != 1 || time.Since(start) < 400*time.Millisecond {
				t.Errorf("RST_STREAM on %d after %v", f.Header().StreamID, time.Since(start))
			}
		}},
		{"an idle connection gets GOAWAY(NO_ERROR) at IdleTimeout and is closed", func(t *testing.T, p *h2Peer) {
			p.get(1, "/")
			start := time.Now()
			code, err := p.goAwayThenClose(5 * time.Second)
			if err != nil || code != xhttp2.ErrCodeNo {
				t.Fatalf("GOAWAY %v, %v", code, err)
			}
			if d := time.Since(start); d < 300*time.Millisecond {
				t.Errorf("closed after %v, IdleTimeout is 400ms", d)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, dialH2(t, s))
			stillServes(t, s)
		})
	}
}

// testFloodEnds sends frames that each ask for an answer, without reading
// any, until the server ends the connection (a write fails) or 30s pass.
// The frames go out in batches of about 64 KiB, so that the flood outruns
// the kernel's buffers quickly even under the race detector.
func testFloodEnds(t *testing.T, p *h2Peer, frame func() error) {
	var batch bytes.Buffer
	fr := xhttp2.NewFramer(&batch, nil)
	p.fr = fr
	for batch.Len() < 64<<10 {
		frame()
	}
	p.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	for i := 0; ; i++ {
		if _, err := p.c.Write(batch.Bytes()); err != nil {
			if !isClosed(err) && !strings.Contains(err.Error(), "broken pipe") {
				t.Fatalf("after %d batches: %v, want the server to close", i, err)
			}
			return
		}
	}
}

func TestH2ShutdownFinishesAcceptedStreams(t *testing.T) {
	for _, setup := range []struct {
		name string
		mode Mode
	}{{"pooled", Pooled}, {"inline", Inline}, {"auto", Auto}} {
		t.Run(setup.name, func(t *testing.T) {
			entered := make(chan struct{}, 1)
			s := &Server{Config: Config{H2C: true, Mode: setup.mode}, Handler: HandlerFunc(func(c *Ctx) {
				if string(c.Path()) == "/slow" {
					entered <- struct{}{}
					if setup.mode != Inline {
						time.Sleep(300 * time.Millisecond)
					}
				}
				c.WriteString("done")
			})}
			if err := s.Listen("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			go s.Serve()
			p := dialH2(t, s)
			p.get(1, "/slow")
			<-entered
			shut := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				shut <- s.Shutdown(ctx)
			}()
			var gotGoAway, gotBody bool
			var lastID uint32
			p.c.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				f, err := p.fr.ReadFrame()
				if err != nil {
					if !isClosed(err) {
						t.Fatalf("reading: %v", err)
					}
					break
				}
				switch f := f.(type) {
				case *xhttp2.GoAwayFrame:
					gotGoAway, lastID = true, f.LastStreamID
				case *xhttp2.DataFrame:
					gotBody = gotBody || string(f.Data()) == "done" && f.StreamID == 1
				}
			}
			if !gotGoAway || lastID != 1 || !gotBody {
				t.Errorf("GOAWAY %v (last stream %d), response %v", gotGoAway, lastID, gotBody)
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		})
	}
}

func TestH2CUpgradeIsAnsweredAsHTTP11(t *testing.T) {
	s := start(t, HandlerFunc(h2Native), Config{H2C: true})
	resp, body := exchange(t, s, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n")
	if resp.StatusCode != 200 || resp.ProtoMajor != 1 || body != "hello" {
		t.Errorf("got %s %d %q", resp.Proto, resp.StatusCode, body)
	}
}

// TestH2CPortAndBadRequestLines: beside h2c, a first line that names no
// HTTP version (a broken preface) is closed without a byte, as HTTP/2
// closes on an invalid preface; one that names a version is still
// answered as HTTP/1.1; without h2c every one gets its HTTP/1.1 answer.
func TestH2CPortAndBadRequestLines(t *testing.T) {
	cases := []struct {
		name, input string
		h2c         bool
		want        string // the first line of the answer; "" for a close without one
	}{
		{"h2spec's invalid preface", "INVALID CONNECTION PREFACE\r\n\r\n", true, ""},
		{"a preface with a typo", "PRI * HTTP/2.1\r\n\r\nSM\r\n\r\n", true, "HTTP/1.1 505 HTTP Version Not Supported"},
		{"an HTTP/0.9 request", "GET /\r\n\r\n", true, ""},
		{"a bad version beside h2c", "GET / HTTP/1.x\r\nHost: x\r\n\r\n", true, "HTTP/1.1 400 Bad Request"},
		{"a bad header beside h2c", "GET / HTTP/1.1\r\nHost x\r\n\r\n", true, "HTTP/1.1 400 Bad Request"},
		{"HTTP/3.0 beside h2c", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", true, "HTTP/1.1 505 HTTP Version Not Supported"},
		{"the invalid preface without h2c", "INVALID CONNECTION PREFACE\r\n\r\n", false, "HTTP/1.1 400 Bad Request"},
		{"HTTP/0.9 without h2c", "GET /\r\n\r\n", false, "HTTP/1.1 400 Bad Request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, HandlerFunc(h2Native), Config{H2C: tc.h2c})
			c, r := rawConn(t, s)
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, tc.input)
			line, err := r.ReadString('\n')
			if tc.want == "" {
				if line != "" || err != io.EOF {
					t.Errorf("got %q, %v; want the connection closed without a byte", line, err)
				}
				return
			}
			if strings.TrimRight(line, "\r\n") != tc.want {
				t.Errorf("got %q (%v), want %q", line, err, tc.want)
			}
		})
	}
}

func TestH2CIsOffByDefault(t *testing.T) {
	s := start(t, HandlerFunc(h2Native), Config{})
	c, r := rawConn(t, s)
	io.WriteString(c, xhttp2.ClientPreface)
	line, _ := r.ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 ") {
		t.Errorf("the preface without H2C got %q, want an HTTP/1.1 answer", line)
	}
}

// TestH2ClientThatSendsButNeverReads checks that a client sending
// requests as fast as it can without reading a byte cannot make the server
// queue responses without bound: past outHigh queued, response bodies stop
// going to the engine, so streams stay open, later ones are refused and
// the refusals end the connection (the Rapid Reset bound); past
// outStopRead the loop stops reading it; WriteTimeout closes it anyway.
func TestH2ClientThatSendsButNeverReads(t *testing.T) {
	s := start(t, HandlerFunc(h2Native), Config{H2C: true, Mode: Inline, WriteTimeout: 500 * time.Millisecond, ErrorLog: discardLog()})
	p := dialH2(t, s)
	var batch bytes.Buffer
	fr := xhttp2.NewFramer(&batch, nil)
	id := uint32(1)
	p.c.SetWriteDeadline(time.Now().Add(20 * time.Second))
	sent := 0
	for {
		batch.Reset()
		for range 500 {
			fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block("/big?n=200"), EndStream: true, EndHeaders: true})
			id += 2
		}
		n, err := p.c.Write(batch.Bytes())
		sent += n
		if err != nil {
			if !isClosed(err) && !strings.Contains(err.Error(), "broken pipe") {
				t.Fatalf("after %d bytes: %v, want the server to close", sent, err)
			}
			break
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 256<<20 {
		t.Errorf("heap in use %d MiB after the client sent %d MiB", ms.HeapInuse>>20, sent>>20)
	}
	stillServes(t, s)
}
