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
//
// With -h3 the connections are QUIC ones with one HTTP/3 GET each (an
// https:// URL), spread over 16 UDP sockets.
//
// With -h2c each connection speaks HTTP/2 with prior knowledge instead:
// the client preface and SETTINGS, one GET on stream 1, the response read
// to its END_STREAM, the server's SETTINGS acknowledged; then it stays
// open and idle.
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
	flag.BoolVar(&useH2C, "h2c", false, "speak HTTP/2 with prior knowledge (h2c) on each connection")
	flag.BoolVar(&useH3, "h3", false, "open QUIC connections and make one HTTP/3 GET on each (an https:// URL; quic-go's client)")
	flag.DurationVar(&hold, "hold", 0, "keep the connections open this long after measuring, so that the server can be sampled meanwhile")
	flag.Parse()
	if *pid == 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: idleconns -pid PID [-n N] URL")
		os.Exit(2)
	}
	run := run
	if useH3 {
		run = runH3
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
		if useH2C {
			if err := h2cGet(c, u); err != nil {
				return fmt.Errorf("connection %d: %w", i, err)
			}
			continue
		}
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
	time.Sleep(hold)
	return nil
}

// hold is -hold: how long the connections stay open after the report.
var hold time.Duration

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

// useH2C: -h2c.
var useH2C bool

// h2cGet makes one HTTP/2 GET on c with prior knowledge, by hand (HPACK
// static-table references and one literal, no dependency), and reads
// frames until the response's END_STREAM.
func h2cGet(c net.Conn, u *url.URL) error {
	const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	frame := func(b []byte, typ, flags byte, stream uint32, payload []byte) []byte {
		n := len(payload)
		b = append(b, byte(n>>16), byte(n>>8), byte(n), typ, flags,
			byte(stream>>24), byte(stream>>16), byte(stream>>8), byte(stream))
		return append(b, payload...)
	}
	// :method GET, :scheme http, :path as a literal, :authority as a literal.
	block := []byte{0x82, 0x86, 0x04, byte(len(u.RequestURI()))}
	block = append(block, u.RequestURI()...)
	block = append(block, 0x01, byte(len(u.Host)))
	block = append(block, u.Host...)
	out := append([]byte(preface), frame(nil, 0x4, 0, 0, nil)...)
	out = frame(out, 0x1, 0x4|0x1, 1, block) // END_HEADERS | END_STREAM
	if _, err := c.Write(out); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	head := make([]byte, 9)
	for {
		if _, err := io.ReadFull(r, head); err != nil {
			return err
		}
		n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
		typ, flags := head[3], head[4]
		stream := uint32(head[5]&0x7f)<<24 | uint32(head[6])<<16 | uint32(head[7])<<8 | uint32(head[8])
		if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
			return err
		}
		switch {
		case typ == 0x4 && flags&0x1 == 0: // SETTINGS: acknowledge
			if _, err := c.Write(frame(nil, 0x4, 0x1, 0, nil)); err != nil {
				return err
			}
		case typ == 0x7: // GOAWAY
			return fmt.Errorf("the server sent GOAWAY")
		case typ == 0x3 && stream == 1: // RST_STREAM
			return fmt.Errorf("the server reset the request")
		case (typ == 0x0 || typ == 0x1) && stream == 1 && flags&0x1 != 0:
			return nil
		}
	}
}
