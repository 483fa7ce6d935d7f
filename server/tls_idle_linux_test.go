//go:build linux

package server

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleClientEnv makes the test binary a client that holds idle TLS
// connections (TestTLSIdleClient): the address, and how many.
const idleClientEnv = "GUST_TLS_IDLE_CLIENT"

// TestTLSIdleConnectionCost measures what an idle TLS keep-alive
// connection costs the server, gust/server beside net/http, the same way:
// a child process opens n connections, sends one request on each, reads
// the response and holds them; this process's heap (after a GC) and RSS
// are read before and after. The clients live in the child, so the numbers
// are the server's alone.
func TestTLSIdleConnectionCost(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a measurement: not under -short or -race")
	}
	const n = 2000
	// Idle connections' keys rest after one to two periods of quiet: let
	// them, within the settling time below.
	defer quietPeriod.Store(quietPeriod.Swap(int64(200 * time.Millisecond)))
	measure := func(t *testing.T, addr string) (heap, rss float64) {
		t.Helper()
		heap0, rss0 := memNow(t)
		defer holdIdleClients(t, "TestTLSIdleClient", idleClientEnv+"="+addr+","+strconv.Itoa(n))()
		time.Sleep(time.Second) // let the server settle, and its keys rest
		heap1, rss1 := memNow(t)
		// GUST_TLS_IDLE_HEAPPROFILE=FILE writes the heap with the
		// connections idle to FILE.<heap bytes>, to see who holds what.
		if f := os.Getenv("GUST_TLS_IDLE_HEAPPROFILE"); f != "" {
			w, _ := os.Create(f + "." + strconv.Itoa(int(heap1)))
			pprof.Lookup("heap").WriteTo(w, 0)
			w.Close()
		}
		return (heap1 - heap0) / n, (rss1 - rss0) / n
	}
	hello := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, Go!") }

	gust := startTLS(t, HTTPHandler(http.HandlerFunc(hello)), Config{})
	gustHeap, gustRSS := measure(t, gust.Addr().String())

	ln, err := tls.Listen("tcp", "127.0.0.1:0", serverTLS())
	if err != nil {
		t.Fatal(err)
	}
	nethttp := &http.Server{Handler: http.HandlerFunc(hello)}
	go nethttp.Serve(ln)
	defer nethttp.Close()
	netHeap, netRSS := measure(t, ln.Addr().String())

	t.Logf("per idle TLS keep-alive connection (%d idle, one request each):", n)
	t.Logf("  gust/server: heap %6.0f B, RSS %6.0f B", gustHeap, gustRSS)
	t.Logf("  net/http:    heap %6.0f B, RSS %6.0f B", netHeap, netRSS)
	// An idle TLS 1.3 connection keeps no record buffer (32 KiB in, 36
	// KiB out, 16 KiB of plaintext) and, its records handed over, no
	// tls.Conn (whose buffers alone keep about 3.5 KB): its keys, state
	// and ConnectionState come to about 3 KB, and about 1.5 KB once the
	// AES-GCM states of a quiet connection rest (TLS.Quiet).
	if gustHeap > 2<<10 {
		t.Errorf("gust/server keeps %.0f heap bytes per idle TLS connection: a record buffer, crypto/tls's records or resting keys are kept", gustHeap)
	}
}

// holdIdleClients runs this test binary's test named test as a child, with
// env added, and returns once it says "ready" (its clients connected and
// idle); the function it returns tells the child to close them and waits
// for it to exit.
func holdIdleClients(t *testing.T, test, env string) (release func()) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	child.Env = append(os.Environ(), env)
	stdin, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	release = func() {
		stdin.Close() // the child closes its connections and exits
		child.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready") {
		release()
		t.Fatalf("idle client: %q %v", line, err)
	}
	return release
}

// memNow returns this process's live heap after a GC and its RSS, in bytes.
func memNow(t *testing.T) (heap, rss float64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			rss = kb * 1024
		}
	}
	return float64(ms.HeapAlloc), rss
}

// TestTLSIdleClient is the child of TestTLSIdleConnectionCost; it does
// nothing in a normal run.
func TestTLSIdleClient(t *testing.T) {
	spec := os.Getenv(idleClientEnv)
	if spec == "" {
		t.Skip("the child process of TestTLSIdleConnectionCost")
	}
	addr, count, _ := strings.Cut(spec, ",")
	n, _ := strconv.Atoi(count)
	cfg := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		c.Close()
	}
}

// TestTLSConnectionsRestAndWake: keep-alive connections over TLS 1.3 and
// 1.2 that sit idle past two quiet periods (their AES-GCM states let go,
// TLS.Quiet) go on serving requests, each of several in a row, as if
// nothing happened; so does HTTP/2 over TLS.
func TestTLSConnectionsRestAndWake(t *testing.T) {
	defer quietPeriod.Store(quietPeriod.Swap(int64(100 * time.Millisecond)))
	hello := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }
	s := startTLS(t, HTTPHandler(http.HandlerFunc(hello)), Config{})
	for _, v := range tlsVersions {
		t.Run(v.name, func(t *testing.T) {
			c := dialTLS(t, s, clientTLS(v.v))
			br := bufio.NewReader(c)
			for i := range 4 {
				if i > 0 {
					time.Sleep(350 * time.Millisecond) // two periods and more
				}
				path := "/" + strconv.Itoa(i)
				fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("request %d after a rest: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if string(body) != "hello "+path {
					t.Fatalf("request %d: body %q", i, body)
				}
			}
		})
	}
}
