// Command idleconns measures what an idle keep-alive connection costs a
// server: it opens N connections to a loopback server, sends one request on
// each and reads the response (so per-connection buffers exist), then holds
// them idle and reports the server's resident memory before and after, per
// connection, from /proc/PID/status. An https:// URL makes the connections
// TLS (ALPN http/1.1, the certificate not verified: the peers and gust
// serve make self-signed ones), each a full handshake.
//
//	idleconns -pid PID -n 15000 http://127.0.0.1:8080/
//	idleconns -pid PID -n 10000 https://127.0.0.1:8443/
package main

import (
	"bufio"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	pid := flag.Int("pid", 0, "server process to measure (required)")
	n := flag.Int("n", 15000, "connections to open")
	settle := flag.Duration("settle", 2*time.Second, "wait this long before measuring, for the server to settle")
	flag.Parse()
	if *pid == 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: idleconns -pid PID [-n N] URL")
		os.Exit(2)
	}
	if err := run(*pid, *n, *settle, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "idleconns:", err)
		os.Exit(1)
	}
}

func run(pid, n int, settle time.Duration, target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	raiseFileLimit()
	before, err := rssKB(pid)
	if err != nil {
		return err
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n\r\n"
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := dial(u)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, req); err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	time.Sleep(settle)
	runtime.GC()
	after, err := rssKB(pid)
	if err != nil {
		return err
	}
	peak, _ := statusKB(pid, "VmHWM:")
	fmt.Printf("connections %d\nrss_before_kb %d\nrss_after_kb %d\npeak_rss_kb %d\nbytes_per_conn %.0f\n",
		n, before, after, peak, float64(after-before)*1024/float64(n))
	return nil
}

// dial opens a connection to u's host, over TLS for https.
func dial(u *url.URL) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if u.Scheme != "https" {
		return d.Dial("tcp", u.Host)
	}
	return tls.DialWithDialer(d, "tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
}

func rssKB(pid int) (int64, error) { return statusKB(pid, "VmRSS:") }

func statusKB(pid int, key string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key) {
			f := strings.Fields(line)
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
