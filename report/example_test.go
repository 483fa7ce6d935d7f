package report_test

import (
	"os"
	"time"

	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

func ExampleText() {
	latency := result.NewHistogram()
	for _, v := range []struct{ us, n int64 }{
		{95, 2000}, {120, 4000}, {160, 2500}, {240, 1000}, {450, 400}, {900, 80}, {2500, 20},
	} {
		latency.RecordValues(v.us, v.n)
	}

	r := &result.Result{
		URL:          "http://127.0.0.1:8080/",
		Method:       "GET",
		Connections:  10,
		Loops:        1,
		Pipeline:     1,
		KeepAlive:    true,
		Start:        time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Duration:     time.Second,
		Requests:     10_000,
		BytesRead:    1_240_000,
		BytesWritten: 520_000,
		Connects:     10,
		Latency:      latency,
		Status:       map[int]int64{200: 10_000},
	}
	report.Text(os.Stdout, r)
	// Output:
	// Target      GET http://127.0.0.1:8080/
	// Load        10 connections on 1 loop, keep-alive, closed model (as fast as possible)
	// Duration    1s
	// Requests    10,000 responses, 10,000.0 req/s
	// Transfer    1.2 MB read (1.2 MB/s), 520.0 kB written
	//
	// Latency     min      mean     stddev   p50      p75      p90      p99      p99.9    p99.99   max
	//             95us     161us    144us    120us    160us    240us    450us    2.5ms    2.5ms    2.5ms
	//
	// Latency distribution
	//   <= 140us   ████████████████████████████████████████   60.0%  (6,000)
	//   <= 190us   ████████████████▋                          25.0%  (2,500)
	//   <= 260us   ██████▋                                    10.0%  (1,000)
	//   <= 360us                                               0.0%  (0)
	//   <= 490us   ██▋                                         4.0%  (400)
	//   <= 680us                                               0.0%  (0)
	//   <= 940us   ▌                                           0.8%  (80)
	//   <= 1.4ms                                               0.0%  (0)
	//   <= 1.9ms                                               0.0%  (0)
	//   <= 2.5ms   ▏                                           0.2%  (20)
	//
	// Status      200: 10,000
	// Errors      none
	// Connections 10 opened, 0 reopened
}
