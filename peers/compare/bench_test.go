package compare

import (
	"context"
	"testing"

	"github.com/gust-http/gust/load"
)

// BenchmarkHello drives every peer with gust's load generator in the same
// process: b.N keep-alive requests over 50 connections (and 16-deep
// pipelining). Generator and server share the process, so ns/op is the
// cost of one request on both sides together and allocs/op counts both;
// the generator allocates nothing per request, so the differences are the
// servers'. Pin with taskset and compare within one run.
func BenchmarkHello(b *testing.B) {
	for _, pipeline := range []int{1, 16} {
		for _, p := range peers {
			name := p.name
			if pipeline > 1 {
				name += "/pipeline16"
			}
			b.Run(name, func(b *testing.B) {
				url := p.start(b)
				// Warm up connections and pools outside the timer.
				if _, err := load.Run(context.Background(), load.Config{URL: url, Connections: 50, Requests: 5000, Pipeline: pipeline}); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				res, err := load.Run(context.Background(), load.Config{URL: url, Connections: 50, Requests: int64(b.N), Pipeline: pipeline})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if res.Requests != int64(b.N) || res.ErrorCount() != 0 {
					b.Fatalf("%d responses, errors %v", res.Requests, res.Errors)
				}
			})
		}
	}
}
