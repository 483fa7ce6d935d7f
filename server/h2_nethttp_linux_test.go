//go:build linux

package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
)

// h2cClient is net/http's client speaking HTTP/2 with prior knowledge.
func h2cClient(t testing.TB) *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// h2Native answers the test paths through the native API: /echo the body's
// length and SHA-256, /big?n= n bytes, /flush three flushed pieces,
// /headers a request header back; anything else "hello".
func h2Native(c *Ctx) {
	switch string(c.Path()) {
	case "/echo":
		sum := sha256.Sum256(c.Body())
		c.SetHeader("X-Proto", fmt.Sprint(c.ProtoAtLeast(2, 0)))
		fmt.Fprintf(c, "%d %s", len(c.Body()), hex.EncodeToString(sum[:]))
	case "/big":
		n, _ := strconv.Atoi(strings.TrimPrefix(string(c.Query()), "n="))
		c.SetContentType("application/octet-stream")
		c.Write(bytes.Repeat([]byte("z"), n))
	case "/flush":
		for i := range 3 {
			fmt.Fprintf(c, "piece %d;", i)
			if err := c.Flush(); err != nil {
				c.WriteString("no flush;")
			}
		}
	case "/headers":
		c.SetHeader("X-Got", string(c.Header("X-Test")))
		c.SetHeader("Connection", "keep-alive")
		c.Write(c.Host())
	default:
		c.WriteString("hello")
	}
}

// h2Mux answers the same paths through net/http, plus /trailers.
func h2Mux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("X-Proto", fmt.Sprint(r.ProtoMajor == 2 && r.Proto == "HTTP/2.0"))
		fmt.Fprintf(w, "%d %s", n, hex.EncodeToString(h.Sum(nil)))
		if t := r.Trailer.Get("X-Sum"); t != "" {
			fmt.Fprintf(w, " trailer=%s", t)
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(bytes.Repeat([]byte("z"), n))
	})
	mux.HandleFunc("/flush", func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 {
			fmt.Fprintf(w, "piece %d;", i)
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/trailers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Checksum")
		w.Write([]byte("body"))
		w.(http.Flusher).Flush()
		w.Header().Set("X-Checksum", "abc")
		w.Header().Set(http.TrailerPrefix+"X-Late", "late")
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Got", r.Header.Get("X-Test"))
		w.Header().Set("Connection", "keep-alive")
		io.WriteString(w, r.Host)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// Read first: h2spec's malformed bodies are then found while the
		// stream is open (an answer before the body ends the stream early,
		// with RST_STREAM(NO_ERROR), and h2spec would see no error).
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "hello")
	})
	return mux
}

// h2Setups are the ways a stream can be served: each API in each mode it
// supports.
var h2Setups = []struct {
	name    string
	handler func() Handler
	mode    Mode
}{
	{"native inline", func() Handler { return HandlerFunc(h2Native) }, Inline},
	{"native pooled", func() Handler { return HandlerFunc(h2Native) }, Pooled},
	{"adapter pooled", func() Handler { return HTTPHandler(h2Mux()) }, Pooled},
	{"native auto", func() Handler { return HandlerFunc(h2Native) }, Auto},
	{"adapter auto", func() Handler { return HTTPHandler(h2Mux()) }, Auto},
}

func h2Get(t *testing.T, client *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp, string(body)
}

func TestH2CWithNetHTTPClient(t *testing.T) {
	for _, setup := range h2Setups {
		t.Run(setup.name, func(t *testing.T) {
			s := start(t, setup.handler(), Config{Mode: setup.mode, H2C: true, MaxBodyBytes: 32 << 20, ErrorLog: discardLog()})
			base := "http://" + s.Addr().String()
			client := h2cClient(t)

			t.Run("GET is answered over HTTP/2", func(t *testing.T) {
				resp, body := h2Get(t, client, base+"/")
				if resp.ProtoMajor != 2 || body != "hello" {
					t.Fatalf("got %s %q", resp.Proto, body)
				}
				if resp.Header.Get("Date") == "" || resp.Header.Get("Content-Type") == "" {
					t.Errorf("headers %v lack Date or Content-Type", resp.Header)
				}
			})
			t.Run("headers and host reach the handler, connection-specific ones do not leave it", func(t *testing.T) {
				req, _ := http.NewRequest("GET", base+"/headers", nil)
				req.Header.Set("X-Test", "v1")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.Header.Get("X-Got") != "v1" || string(body) != s.Addr().String() {
					t.Errorf("got %v %q", resp.Header, body)
				}
			})
			for _, size := range []int{0, 100 << 10, 10 << 20} {
				t.Run(fmt.Sprintf("POST body of %d bytes", size), func(t *testing.T) {
					body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
					sum := sha256.Sum256(body)
					resp, err := client.Post(base+"/echo", "application/octet-stream", bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					got, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if want := fmt.Sprintf("%d %s", size, hex.EncodeToString(sum[:])); string(got) != want {
						t.Errorf("got %q, want %q", got, want)
					}
					if resp.Header.Get("X-Proto") != "true" {
						t.Errorf("the handler did not see HTTP/2: %v", resp.Header)
					}
				})
			}
			t.Run("responses larger than the windows", func(t *testing.T) {
				for _, n := range []int{70_000, 5 << 20} {
					_, body := h2Get(t, client, fmt.Sprintf("%s/big?n=%d", base, n))
					if len(body) != n {
						t.Errorf("n=%d: got %d bytes", n, len(body))
					}
				}
			})
			t.Run("many concurrent streams", func(t *testing.T) {
				var wg sync.WaitGroup
				errs := make(chan error, 200)
				for i := range 200 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						n := 1000 + i*97
						resp, err := client.Get(fmt.Sprintf("%s/big?n=%d", base, n))
						if err != nil {
							errs <- err
							return
						}
						b, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						if err != nil || len(b) != n {
							errs <- fmt.Errorf("stream %d: %d bytes, %v", i, len(b), err)
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
			t.Run("Flush sends pieces in Pooled and Auto modes", func(t *testing.T) {
				_, body := h2Get(t, client, base+"/flush")
				want := "piece 0;piece 1;piece 2;"
				if setup.mode == Inline {
					want = "piece 0;no flush;piece 1;no flush;piece 2;no flush;"
				}
				if body != want {
					t.Errorf("got %q, want %q", body, want)
				}
			})
		})
	}
}

func TestH2CAdapterTrailers(t *testing.T) {
	s := start(t, HTTPHandler(h2Mux()), Config{H2C: true})
	base := "http://" + s.Addr().String()
	client := h2cClient(t)
	t.Run("response trailers, declared and by prefix", func(t *testing.T) {
		resp, err := client.Get(base + "/trailers")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "body" || resp.Trailer.Get("X-Checksum") != "abc" || resp.Trailer.Get("X-Late") != "late" {
			t.Errorf("got %q, trailers %v", body, resp.Trailer)
		}
	})
	t.Run("request trailers reach r.Trailer", func(t *testing.T) {
		pr, pw := io.Pipe()
		req, _ := http.NewRequest("POST", base+"/echo", pr)
		req.Trailer = http.Header{"X-Sum": nil}
		go func() {
			pw.Write([]byte("abc"))
			req.Trailer.Set("X-Sum", "s1")
			pw.Close()
		}()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.HasSuffix(string(body), "trailer=s1") {
			t.Errorf("got %q", body)
		}
	})
}

func TestH2CStreamedBodyIsBoundedByMaxBodyBytes(t *testing.T) {
	read := make(chan error, 1)
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.Copy(io.Discard, r.Body)
		read <- err
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	})), Config{H2C: true, MaxBodyBytes: 1 << 20})
	// An io.Reader of unknown length: sent without content-length.
	body := io.MultiReader(bytes.NewReader(make([]byte, 3<<20)))
	resp, err := h2cClient(t).Post("http://"+s.Addr().String()+"/", "application/octet-stream", body)
	if err == nil {
		resp.Body.Close()
	}
	if err := <-read; err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("reading a 3 MiB body with MaxBodyBytes 1 MiB: %v, want too large", err)
	}
}

// TestH2COverATransportThatHoldsBytes runs HTTP/2 over a transport with
// TLS's contract (see holding), as h2 over TLS will.
func TestH2COverATransportThatHoldsBytes(t *testing.T) {
	for _, setup := range h2Setups {
		t.Run(setup.name, func(t *testing.T) {
			s := startHolding(t, setup.handler(), Config{Mode: setup.mode, H2C: true})
			base := "http://" + s.Addr().String()
			client := h2cClient(t)
			if resp, body := h2Get(t, client, base+"/"); resp.ProtoMajor != 2 || body != "hello" {
				t.Errorf("GET: %s %q", resp.Proto, body)
			}
			if _, body := h2Get(t, client, base+"/big?n=300000"); len(body) != 300000 {
				t.Errorf("a 300000-byte response came as %d bytes", len(body))
			}
			body := bytes.Repeat([]byte("x"), 50_000)
			sum := sha256.Sum256(body)
			resp, err := client.Post(base+"/echo", "text/plain", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf("%d %s", len(body), hex.EncodeToString(sum[:])); string(got) != want {
				t.Errorf("POST: got %q, want %q", got, want)
			}
		})
	}
}

// TestH2CHandlerSeesTheClientGo checks that a streaming handler learns that
// its stream was reset (its writes fail, its context ends) and returns,
// when the client cancels one request and when it drops the connection.
func TestH2CHandlerSeesTheClientGo(t *testing.T) {
	exited := make(chan string, 4)
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { exited <- r.URL.Path }()
		chunk := bytes.Repeat([]byte("s"), 1024)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	})), Config{H2C: true, ErrorLog: discardLog()})
	base := "http://" + s.Addr().String()
	for _, tt := range []struct {
		name string
		end  func(cancel func())
	}{
		{"the request is cancelled", func(cancel func()) { cancel() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := h2cClient(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/stream", nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadFull(resp.Body, make([]byte, 10_000))
			tt.end(cancel)
			resp.Body.Close()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatal("the handler still runs 5s after its client went")
			}
		})
	}
	t.Run("the connection is dropped", func(t *testing.T) {
		p := dialH2(t, s)
		p.get(1, "/stream")
		if _, err := p.until(5*time.Second, func(f xhttp2.Frame) bool { _, ok := f.(*xhttp2.DataFrame); return ok }); err != nil {
			t.Fatal(err)
		}
		p.c.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler still runs 5s after its connection closed")
		}
	})
}

// TestH2CMixedLoadWithCancels runs GETs, POSTs and requests cancelled at
// random moments over a few shared connections, then checks that every
// handler has returned and the server still answers.
func TestH2CMixedLoadWithCancels(t *testing.T) {
	for _, setup := range h2Setups {
		t.Run(setup.name, func(t *testing.T) {
			s := start(t, setup.handler(), Config{Mode: setup.mode, H2C: true, ErrorLog: discardLog()})
			base := "http://" + s.Addr().String()
			client := h2cClient(t)
			var wg sync.WaitGroup
			for g := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 15 {
						ctx, cancel := context.WithCancel(context.Background())
						var req *http.Request
						if (g+i)%2 == 0 {
							req, _ = http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/big?n=%d", base, 1000*(g*15+i)), nil)
						} else {
							req, _ = http.NewRequestWithContext(ctx, "POST", base+"/echo", bytes.NewReader(make([]byte, 700*(g*15+i))))
						}
						if (g*7+i)%3 == 0 {
							time.AfterFunc(time.Duration((g+i)%5)*time.Millisecond, cancel)
						}
						if resp, err := client.Do(req); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
						cancel()
					}
				}()
			}
			wg.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for s.Stats().InFlight != 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := s.Stats().InFlight; n != 0 {
				// Seen once in CI (native inline), never here: the
				// stacks say whether a handler runs or the count is off.
				var stacks strings.Builder
				pprof.Lookup("goroutine").WriteTo(&stacks, 1)
				t.Errorf("%d handlers still running 10s after the load (stats %+v); goroutines:\n%s", n, s.Stats(), stacks.String())
			}
			stillServes(t, s)
		})
	}
}

// TestH2WrappedAdapterRemoteAddr: the adapter wrapped in a native handler
// over h2c, streams served on workers at once, each reads RemoteAddr (the
// connection's address, formatted once on the loop: under -race, workers
// that formatted it themselves raced).
func TestH2WrappedAdapterRemoteAddr(t *testing.T) {
	adapter := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RemoteAddr)
	}))
	wrapped := HandlerFunc(func(c *Ctx) { adapter.ServeGust(c) })
	s := start(t, wrapped, Config{Mode: Pooled, H2C: true})
	client := h2cClient(t)
	var wg sync.WaitGroup
	got := make([]string, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get("http://" + s.Addr().String() + "/")
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got[i] = string(b)
		}()
	}
	wg.Wait()
	for i, a := range got {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" || a != got[0] {
			t.Errorf("stream %d: RemoteAddr %q (the first %q), want one host:port for the connection", i, a, got[0])
		}
	}
}
