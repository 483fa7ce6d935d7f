// Command quicgoload is the HTTP/3 load client gust load --proto h3 is
// measured against: quic-go v0.65.0's http3.Transport, the client side
// of the stack behind Caddy, driven as a closed loop. Each of -c
// connections is a Transport of its own (one QUIC connection each) with
// -m goroutines sending one request after another on it, for -z or
// until -n requests. At the end it prints one line: requests, errors,
// seconds, requests per second, and the CPU time the process used per
// request (user plus system), which is what the comparison reads.
//
// Certificates are not checked (-insecure is implied): it is a load
// client for loopback peers.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

func main() {
	conns := flag.Int("c", 10, "connections")
	streams := flag.Int("m", 1, "requests in flight per connection")
	dur := flag.Duration("z", 10*time.Second, "run this long")
	n := flag.Int64("n", 0, "stop after this many requests (0: run for -z)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: quicgoload [-c N] [-m N] [-z D] [-n N] https://host:port/path")
		os.Exit(2)
	}
	url := flag.Arg(0)
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	defer cancel()
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	before := cpu()
	start := time.Now()
	for range *conns {
		tr := &http3.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
			QUICConfig:      &quic.Config{MaxIdleTimeout: time.Minute},
		}
		defer tr.Close()
		client := &http.Client{Transport: tr}
		for range *streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					if *n > 0 && done.Load()+failed.Load() >= *n {
						cancel()
						return
					}
					req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
					resp, err := client.Do(req)
					if err != nil {
						if ctx.Err() == nil {
							failed.Add(1)
						}
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						done.Add(1)
					} else {
						failed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	used := cpu() - before
	ok := done.Load()
	fmt.Printf("requests %d errors %d seconds %.2f req/s %.0f cpu_us_per_req %.2f\n",
		ok, failed.Load(), secs, float64(ok)/secs, used.Seconds()*1e6/float64(max(ok, 1)))
}

// cpu returns the user and system time the process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
