package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

func run(t *testing.T, cfg Config) *result.Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRunCountsEveryResponse(t *testing.T) {
	srv := helloServer(t)
	tests := []struct {
		name string
		cfg  Config
	}{
		{"keep-alive with a request budget", Config{Connections: 8, Requests: 2000}},
		{"one connection", Config{Connections: 1, Requests: 300}},
		{"more loops than one", Config{Connections: 9, Requests: 900, Loops: 3}},
		{"pipelined 8 deep", Config{Connections: 4, Requests: 2000, Pipeline: 8}},
		{"keep-alive off", Config{Connections: 4, Requests: 400, DisableKeepAlive: true}},
		{"open model", Config{Connections: 4, Requests: 200, Rate: 2000}},
		// Loops waiting on their own threads (Run raises GOMAXPROCS for
		// them; put back below).
		{"loops on their own threads", Config{Connections: 8, Requests: 2000, Loops: 2, OwnThreads: true}},
		{"open model, loops on their own threads", Config{Connections: 4, Requests: 200, Rate: 2000, OwnThreads: true}},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.URL = srv.URL + "/path?q=1"
			res := run(t, cfg)
			if res.Requests != cfg.Requests {
				t.Errorf("Requests = %d, want %d", res.Requests, cfg.Requests)
			}
			if got := res.Status[200]; got != cfg.Requests {
				t.Errorf("status 200 = %d, want %d (status %v)", got, cfg.Requests, res.Status)
			}
			if n := res.ErrorCount(); n != 0 {
				t.Errorf("errors = %v, want none", res.Errors)
			}
			if got := res.Latency.TotalCount(); got != cfg.Requests {
				t.Errorf("latency samples = %d, want %d", got, cfg.Requests)
			}
			if res.BytesRead == 0 || res.BytesWritten == 0 {
				t.Errorf("bytes read %d, written %d: want both counted", res.BytesRead, res.BytesWritten)
			}
			var timeline int64
			for _, s := range res.Timeline {
				timeline += s.Requests
			}
			if timeline != res.Requests {
				t.Errorf("timeline adds up to %d, want %d", timeline, res.Requests)
			}
		})
	}
}

func TestKeepAliveReusesConnections(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			w.WriteString(helloResponse)
			return true
		})
	})
	res := run(t, Config{URL: srv.url(), Connections: 5, Requests: 1000})
	// One extra connection is the start-up probe.
	if got := srv.count.Load(); got != 6 {
		t.Errorf("server accepted %d connections, want 5 plus the probe", got)
	}
	if res.Connects != 5 || res.Reconnects != 0 {
		t.Errorf("Connects %d Reconnects %d, want 5 and 0", res.Connects, res.Reconnects)
	}
}

func TestDisableKeepAliveConnectsPerRequest(t *testing.T) {
	var sawClose atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Close {
			sawClose.Store(true)
		}
		w.Write([]byte("Hello, Go!"))
	}))
	defer srv.Close()
	res := run(t, Config{URL: srv.URL, Connections: 2, Requests: 100, DisableKeepAlive: true})
	if !sawClose.Load() {
		t.Error("requests did not carry Connection: close")
	}
	if res.Connects < 100 {
		t.Errorf("Connects = %d, want one per request (100)", res.Connects)
	}
	if res.Connect.TotalCount() < 100 {
		t.Errorf("connect times recorded = %d, want 100", res.Connect.TotalCount())
	}
	if res.Reconnects != 0 {
		t.Errorf("Reconnects = %d: closing per request is not a reconnect", res.Reconnects)
	}
}

func TestPipelineKeepsRequestsInFlight(t *testing.T) {
	var maxBatch atomic.Int64
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			if int64(batch) > maxBatch.Load() {
				maxBatch.Store(int64(batch))
			}
			// Number the responses so out-of-order matching would show.
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%d", len(fmt.Sprint(n)), n)
			return true
		})
	})
	res := run(t, Config{URL: srv.url(), Connections: 1, Requests: 1600, Pipeline: 16})
	if res.Requests != 1600 || res.ErrorCount() != 0 {
		t.Fatalf("Requests %d errors %v", res.Requests, res.Errors)
	}
	if maxBatch.Load() < 2 {
		t.Errorf("the server never saw more than %d requests at once; want pipelining", maxBatch.Load())
	}
}

func TestResponseFraming(t *testing.T) {
	tests := []struct {
		name     string
		response string
		method   string
	}{
		{"content-length", helloResponse, ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n7;ext=1\r\n, there\r\n0\r\nX-Trailer: yes\r\n\r\n", ""},
		{"empty chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", ""},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", ""},
		{"interim 100 continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", ""},
		{"HEAD with a length but no body", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", "HEAD"},
		{"bare LF line ends", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", ""},
		{"large body", "HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n" + strings.Repeat("x", 200000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, func(c net.Conn) {
				serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
					// Split the start of the response into small writes to
					// exercise parsing across reads.
					i := 0
					for ; i < len(tt.response) && i < 210; i += 7 {
						w.WriteString(tt.response[i:min(i+7, len(tt.response))])
						w.Flush()
					}
					if i < len(tt.response) {
						w.WriteString(tt.response[i:])
					}
					return true
				})
			})
			res := run(t, Config{URL: srv.url(), Method: tt.method, Connections: 2, Requests: 200})
			if res.Requests != 200 || res.ErrorCount() != 0 {
				t.Errorf("Requests %d errors %v, want 200 and none", res.Requests, res.Errors)
			}
		})
	}
}

func TestUntilCloseBodies(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			w.WriteString("HTTP/1.0 200 OK\r\n\r\nbody until close")
			return false
		})
	})
	res := run(t, Config{URL: srv.url(), Connections: 2, Requests: 100})
	if res.Requests != 100 || res.ErrorCount() != 0 {
		t.Errorf("Requests %d errors %v, want 100 and none", res.Requests, res.Errors)
	}
}

func TestServerClosingConnections(t *testing.T) {
	t.Run("after a response that says close, the connection is reopened", func(t *testing.T) {
		srv := newRawServer(t, func(c net.Conn) {
			serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
				if n == 10 {
					w.WriteString("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
					return false
				}
				w.WriteString(helloResponse)
				return true
			})
		})
		res := run(t, Config{URL: srv.url(), Connections: 2, Requests: 200})
		if res.Requests != 200 || res.ErrorCount() != 0 {
			t.Errorf("Requests %d errors %v, want 200 and none", res.Requests, res.Errors)
		}
		if res.Reconnects < 10 {
			t.Errorf("Reconnects = %d, want about 20", res.Reconnects)
		}
	})
	t.Run("a close before the response counts as an error", func(t *testing.T) {
		srv := newRawServer(t, func(c net.Conn) {
			serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
				if n == 5 {
					w.WriteString("HTTP/1.1 200 OK\r\nContent-Le") // cut short
					return false
				}
				w.WriteString(helloResponse)
				return true
			})
		})
		res := run(t, Config{URL: srv.url(), Connections: 1, Requests: 100})
		if res.Errors[result.ErrClosed] == 0 {
			t.Errorf("errors %v, want closed", res.Errors)
		}
		if res.Requests+res.ErrorCount() < 100 {
			t.Errorf("Requests %d + errors %d, want at least 100", res.Requests, res.ErrorCount())
		}
	})
}

func TestErrorsAreClassified(t *testing.T) {
	tests := []struct {
		name  string
		serve func(c net.Conn)
		want  result.ErrorKind
	}{
		{"garbage is a protocol error", func(c net.Conn) {
			serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
				w.WriteString("SSH-2.0-OpenSSH\r\n\r\n")
				return true
			})
		}, result.ErrProtocol},
		{"a silent server is a read timeout", func(c net.Conn) {
			serveRequests(c, func(w *bufio.Writer, n, batch int) bool { return true })
		}, result.ErrReadTimeout},
		{"a reset is a reset", func(c net.Conn) {
			serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
				c.(*net.TCPConn).SetLinger(0)
				return false
			})
		}, result.ErrReset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, tt.serve)
			res := run(t, Config{URL: srv.url(), Connections: 2, Duration: 600 * time.Millisecond, Timeout: 200 * time.Millisecond})
			if res.Errors[tt.want] == 0 {
				t.Errorf("errors %v, want some %s", res.Errors, tt.want)
			}
		})
	}
}

func TestUnreachableTargetFailsFast(t *testing.T) {
	addr := freeAddr(t)
	start := time.Now()
	_, err := Run(context.Background(), Config{URL: "http://" + addr + "/", Duration: time.Minute, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v, want a connection refused error naming %s", err, addr)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s, want a failure within the timeout", d)
	}
}

func TestTargetGoingDownMidRun(t *testing.T) {
	// The target goes down once responses are coming back, not at a fixed
	// time (a run on a busy machine may start late): a connection's second
	// request means its first response has arrived.
	answered := make(chan struct{})
	var once sync.Once
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			if n > 1 {
				once.Do(func() { close(answered) })
			}
			w.WriteString(helloResponse)
			return true
		})
	})
	go func() {
		select {
		case <-answered:
		case <-time.After(5 * time.Second):
		}
		srv.close()
	}()
	res := run(t, Config{URL: srv.url(), Connections: 4, Duration: 600 * time.Millisecond, Timeout: time.Second})
	if res.Requests == 0 {
		t.Error("no responses before the target went down")
	}
	if res.Errors[result.ErrConnectRefused] == 0 {
		t.Errorf("errors %v, want connect_refused after the target went down", res.Errors)
	}
	if res.Duration > 800*time.Millisecond {
		t.Errorf("ran %s, want it to keep to its 600ms", res.Duration)
	}
}

func TestCancelStopsTheRunAndKeepsTheResult(t *testing.T) {
	srv := helloServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 4, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run returned %s after start, want soon after the cancel", d)
	}
	if !res.Interrupted || res.Requests == 0 {
		t.Errorf("Interrupted %v Requests %d: want an interrupted run with its responses", res.Interrupted, res.Requests)
	}
}

// behind is how many requests an open-model run at rate per second had
// not sent at the worst of its lateness: what a generator on a busy
// machine, still behind when the run ends, never sends.
func behind(res *result.Result, rate float64) int64 {
	return int64(rate * float64(res.Lateness.Max()) / 1e6)
}

func TestRateModeKeepsTheSchedule(t *testing.T) {
	srv := helloServer(t)
	res := run(t, Config{URL: srv.URL, Connections: 10, Duration: 2 * time.Second, Rate: 500})
	// 1000 intended over 2s; allow the edges of the window, and what a
	// generator still behind at the end never sent.
	if res.Requests < 950-behind(res, 500) || res.Requests > 1001 {
		t.Errorf("Requests = %d, want about 1000 at 500/s for 2s", res.Requests)
	}
	if got := res.Lateness.TotalCount(); got < res.Requests {
		t.Errorf("lateness samples = %d, want one per request (%d)", got, res.Requests)
	}
}

func TestWarmupIsNotCounted(t *testing.T) {
	srv := helloServer(t)
	res := run(t, Config{URL: srv.URL, Connections: 2, Rate: 200, Warmup: 500 * time.Millisecond, Duration: time.Second})
	if res.Requests < 180-behind(res, 200) || res.Requests > 210 {
		t.Errorf("Requests = %d, want about 200: warmup requests must not count", res.Requests)
	}
}

// TestOpenModelSeesStalls is the coordinated-omission check: a server that
// stalls for 1 s every 3 s must show up in the open model's p90, while the
// closed model at low concurrency hides it.
func TestOpenModelSeesStalls(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 12 s")
	}
	srv := stallServer(t)
	open := run(t, Config{URL: srv.URL, Connections: 10, Rate: 500, Duration: 6 * time.Second})
	closed := run(t, Config{URL: srv.URL, Connections: 2, Duration: 6 * time.Second})
	openP90 := time.Duration(open.Latency.ValueAtQuantile(90)) * time.Microsecond
	closedP90 := time.Duration(closed.Latency.ValueAtQuantile(90)) * time.Microsecond
	t.Logf("open model p90 %s (late %d), closed model p90 %s", openP90, open.Late, closedP90)
	if openP90 < 200*time.Millisecond {
		t.Errorf("open model p90 = %s, want hundreds of ms: the stalls must show", openP90)
	}
	if closedP90 > 50*time.Millisecond {
		t.Errorf("closed model p90 = %s, want small: the closed model hides the stalls", closedP90)
	}
	if open.Late == 0 {
		t.Error("open model counted no late requests during 1 s stalls")
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no stop condition", Config{URL: "http://127.0.0.1:1/"}, "-n"},
		{"missing scheme", Config{URL: "127.0.0.1:8080", Requests: 1}, "missing scheme"},
		{"ftp is not supported", Config{URL: "ftp://example.test/", Requests: 1}, "not supported"},
		{"bad TLS version", Config{URL: "https://example.test/", Requests: 1, TLS: TLSConfig{MinVersion: 0x0301}}, "use 1.2 or 1.3"},
		{"TLS versions crossed", Config{URL: "https://example.test/", Requests: 1, TLS: TLSConfig{MinVersion: 0x0304, MaxVersion: 0x0303}}, "above"},
		{"no host", Config{URL: "http:///path", Requests: 1}, "missing host"},
		{"bad method", Config{URL: "http://127.0.0.1:1/", Method: "GE T", Requests: 1}, "bad method"},
		{"bad header", Config{URL: "http://127.0.0.1:1/", Header: [][2]string{{"X Bad", "v"}}, Requests: 1}, "bad header"},
		{"header injection", Config{URL: "http://127.0.0.1:1/", Header: [][2]string{{"X", "a\r\nEvil: 1"}}, Requests: 1}, "bad header"},
		{"negative rate", Config{URL: "http://127.0.0.1:1/", Requests: 1, Rate: -1}, "rate"},
		{"pipeline without keep-alive", Config{URL: "http://127.0.0.1:1/", Requests: 1, Pipeline: 2, DisableKeepAlive: true}, "keep-alive"},
		{"huge pipeline", Config{URL: "http://127.0.0.1:1/", Requests: 1, Pipeline: 5000}, "pipeline"},
		{"auto over plain TCP", Config{URL: "http://127.0.0.1:1/", Requests: 1, AutoProtocol: true}, "needs an https:// URL"},
		{"auto and HTTP2 both", Config{URL: "https://127.0.0.1:1/", Requests: 1, AutoProtocol: true, HTTP2: true}, "not both"},
		{"auto without keep-alive", Config{URL: "https://127.0.0.1:1/", Requests: 1, AutoProtocol: true, DisableKeepAlive: true}, "drop --disable-keepalive"},
		{"auto with too many streams", Config{URL: "https://127.0.0.1:1/", Requests: 1, AutoProtocol: true, Streams: MaxStreams + 1}, "streams must be between"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines, want one line", err)
			}
		})
	}
	if !errors.Is(func() error { _, err := Run(context.Background(), Config{URL: "http://x/"}); return err }(), ErrNoStop) {
		t.Error("want ErrNoStop for a run without a stop condition")
	}
}

func TestDisableKeepAliveClosesWhenTheServerDoesNot(t *testing.T) {
	// A server that ignores the request's Connection: close and keeps the
	// connection open: the generator closes it itself after the response.
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			w.WriteString(helloResponse)
			return true
		})
	})
	for _, rate := range []float64{0, 1000} {
		res := run(t, Config{URL: srv.url(), Connections: 2, Requests: 100, Rate: rate, DisableKeepAlive: true})
		if res.Requests != 100 || res.ErrorCount() != 0 {
			t.Errorf("rate %g: Requests %d errors %v, want 100 and none", rate, res.Requests, res.Errors)
		}
		if res.Connects < 100 {
			t.Errorf("rate %g: Connects = %d, want one per request (100)", rate, res.Connects)
		}
	}
}
