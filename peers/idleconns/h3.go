package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// useH3: -h3.
var useH3 bool

// h3Sockets is how many UDP sockets the QUIC connections are spread over,
// so that a server with a socket per loop (SO_REUSEPORT) sees them from
// several addresses.
const h3Sockets = 16

// runH3 is run for -h3: n QUIC connections, each with one HTTP/3 GET
// answered, then held idle (quic-go's client, which sends nothing while
// idle: its idle timeout is set past the measurement).
func runH3(pid, n int, settle time.Duration, target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	addr, err := net.ResolveUDPAddr("udp", u.Host)
	if err != nil {
		return err
	}
	before, err := rssKB(pid)
	if err != nil {
		return err
	}
	var trs []*quic.Transport
	for range h3Sockets {
		pc, err := net.ListenUDP("udp", nil)
		if err != nil {
			return err
		}
		trs = append(trs, &quic.Transport{Conn: pc})
	}
	defer func() {
		for _, tr := range trs {
			tr.Close()
		}
	}()
	tc := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{http3.NextProtoH3}}
	qcfg := &quic.Config{MaxIdleTimeout: 10 * time.Minute}
	h3 := &http3.Transport{}
	conns := make([]*quic.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.CloseWithError(0, "")
		}
	}()
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := trs[i%h3Sockets].Dial(ctx, addr, tc, qcfg)
		if err != nil {
			cancel()
			return fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		req, _ := http.NewRequestWithContext(ctx, "GET", target, nil)
		resp, err := h3.NewClientConn(c).RoundTrip(req)
		if err != nil {
			cancel()
			return fmt.Errorf("connection %d: %w", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
	}
	time.Sleep(settle)
	runtime.GC()
	after, err := rssKB(pid)
	if err != nil {
		return err
	}
	peak, _ := statusKB(pid, "VmHWM:")
	threads, _ := statusKB(pid, "Threads:")
	fmt.Printf("connections %d\nrss_before_kb %d\nrss_after_kb %d\npeak_rss_kb %d\nbytes_per_conn %.0f\nserver_threads %d\n",
		n, before, after, peak, float64(after-before)*1024/float64(n), threads)
	time.Sleep(hold)
	return nil
}
