package load

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// cannedTLSEnv makes the test binary a canned TLS server (see TestMain), so
// that a benchmark's allocations are the generator's only: an in-process
// server's crypto/tls would count too.
const cannedTLSEnv = "GUST_TEST_CANNED_TLS"

func TestMain(m *testing.M) {
	if v := os.Getenv(cannedTLSEnv); v != "" {
		serveCannedTLS(v)
		return
	}
	os.Exit(m.Run())
}

// serveCannedTLS answers every request head with benchResponse over TLS
// (version "1.2" or "1.3", a self-signed certificate), printing its
// address on stdout, until stdin closes.
func serveCannedTLS(version string) {
	cert, _, err := transport.SelfSigned(nil, time.Hour)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS13}
	if version == "1.2" {
		cfg.MaxVersion = tls.VersionTLS12
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(ln.Addr().String())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerCanned(c)
		}
	}()
	io.Copy(io.Discard, os.Stdin)
}

// cannedTLSServer starts the canned TLS server in a child process and
// returns its address.
func cannedTLSServer(tb testing.TB, version string) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), cannedTLSEnv+"="+version)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		tb.Fatalf("canned TLS server: %q %v", line, err)
	}
	return strings.TrimSpace(line)
}

// BenchmarkLoopbackTLS is BenchmarkLoopback over TLS against a server in
// another process, so allocs/op counts the generator alone: its loop and
// transport, and crypto/tls's client. The connections' handshakes are
// made in the timed run (a fixed cost spread over b.N).
func BenchmarkLoopbackTLS(b *testing.B) {
	for _, bc := range []struct {
		name, version string
		pipeline      int
	}{{"tls13-keepalive", "1.3", 1}, {"tls12-keepalive", "1.2", 1}, {"tls13-pipeline16", "1.3", 16}} {
		b.Run(bc.name, func(b *testing.B) {
			addr := cannedTLSServer(b, bc.version)
			benchRun(b, Config{URL: "https://" + addr + "/", Connections: 8, Requests: int64(b.N), Pipeline: bc.pipeline,
				Timeout: 10 * time.Second, TLS: TLSConfig{Insecure: true}})
		})
	}
}

// TestTLSKeepAliveAllocations holds what a keep-alive request over TLS
// costs the generator in allocations: crypto/tls's one per record read
// (the &atLeastReader{} of Conn.readFromUntil, which net/http pays too),
// and nothing of gust's own. Two runs that differ only in their number of
// requests make the same handshakes, so their difference is the requests'.
func TestTLSKeepAliveAllocations(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts need the race detector off, and a few seconds")
	}
	addr := cannedTLSServer(t, "1.3")
	mallocs := func(n int64) uint64 {
		e, err := newEngine(Config{URL: "https://" + addr + "/", Connections: 2, Loops: 1, Requests: n,
			Timeout: 10 * time.Second, TLS: TLSConfig{Insecure: true}})
		if err != nil {
			t.Fatal(err)
		}
		loops, err := e.newLoops()
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := e.runLoops(context.Background(), loops)
		runtime.ReadMemStats(&after)
		if res.Requests != n || res.ErrorCount() != 0 {
			t.Fatalf("requests %d errors %v, want %d and none", res.Requests, res.Errors, n)
		}
		return after.Mallocs - before.Mallocs
	}
	mallocs(500) // warm the pools
	const small, large = 2000, 12000
	a, b := mallocs(small), mallocs(large)
	per := float64(int64(b)-int64(a)) / (large - small)
	t.Logf("%.3f allocations per keep-alive request over TLS 1.3 (crypto/tls's record read: 1)", per)
	if per > 1.1 {
		t.Errorf("%.3f allocations per request, want at most crypto/tls's 1 per record", per)
	}
}
