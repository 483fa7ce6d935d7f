package load

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// TestShardsAddUpToTheWhole splits runs N ways and checks that the shares
// add up exactly and differ by at most one (by a fair part, for a rate
// that is not whole).
func TestShardsAddUpToTheWhole(t *testing.T) {
	tests := []struct {
		name        string
		connections int
		requests    int64
		rate        float64
		count       int
	}{
		{"an even split", 400, 100_000, 40_000, 4},
		{"remainders spread", 50, 1001, 1001, 4},
		{"as many connections as shards", 3, 3, 3, 3},
		{"a rate that is not whole", 7, 0, 2.5, 2},
		{"one shard", 10, 10, 10, 1},
		{"many shards", 1000, 999_999, 12_345, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var conns, reqs int64
			var rate float64
			minC, maxC := int64(1<<62), int64(0)
			for i := 0; i < tt.count; i++ {
				c := (&Config{Connections: tt.connections, Requests: tt.requests, Rate: tt.rate, Loops: 4, Shard: result.Shard{Index: i, Count: tt.count}}).withDefaults()
				if err := c.applyShard(); err != nil {
					t.Fatalf("shard %d: %v", i, err)
				}
				conns += int64(c.Connections)
				reqs += c.Requests
				rate += c.Rate
				minC, maxC = min(minC, int64(c.Connections)), max(maxC, int64(c.Connections))
				if c.Loops > c.Connections {
					t.Errorf("shard %d has %d loops for %d connections", i, c.Loops, c.Connections)
				}
				if tt.rate == 2.5 && c.Rate != 1.25 {
					t.Errorf("shard %d rate = %g, want an even 1.25", i, c.Rate)
				}
			}
			if conns != int64(tt.connections) || reqs != tt.requests || rate != tt.rate {
				t.Errorf("shares add up to %d connections, %d requests, %g/s; want %d, %d, %g",
					conns, reqs, rate, tt.connections, tt.requests, tt.rate)
			}
			if maxC-minC > 1 {
				t.Errorf("connection shares range from %d to %d, want within one", minC, maxC)
			}
		})
	}
}

func TestShardErrors(t *testing.T) {
	url := "http://127.0.0.1:1/"
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"fewer connections than shards", Config{URL: url, Connections: 3, Requests: 100, Shard: result.Shard{Index: 0, Count: 4}}, "at least 4 (-c)"},
		{"fewer requests than shards", Config{URL: url, Connections: 8, Requests: 3, Shard: result.Shard{Index: 0, Count: 4}}, "at least 4 (-n)"},
		{"a whole rate below one per shard", Config{URL: url, Connections: 8, Requests: 8, Rate: 3, Shard: result.Shard{Index: 0, Count: 4}}, "at least 4/s"},
		{"an index past the count", Config{URL: url, Requests: 8, Shard: result.Shard{Index: 4, Count: 4}}, "from 0 to 3"},
		{"a replay", Config{URL: url, Source: &listSource{}, Shard: result.Shard{Index: 0, Count: 2}}, "cannot be sharded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

// TestShardRunsItsShare runs one shard of a run against a loopback server.
func TestShardRunsItsShare(t *testing.T) {
	srv := helloServer(t)
	res := run(t, Config{URL: srv.URL, Connections: 5, Requests: 10, Rate: 1000, Shard: result.Shard{Index: 1, Count: 4}})
	// 5 connections over 4: 2, 1, 1, 1; 10 requests: 3, 3, 2, 2; 1000/s: 250 each.
	if res.Connections != 1 || res.Requests != 3 || res.Rate != 250 || res.Shard != (result.Shard{Index: 1, Count: 4}) {
		t.Errorf("shard 1/4 ran %d connections, %d requests at %g/s as %v; want 1, 3, 250 as 1/4",
			res.Connections, res.Requests, res.Rate, res.Shard)
	}
}

func TestStartAtWaits(t *testing.T) {
	srv := helloServer(t)
	at := time.Now().Add(300 * time.Millisecond)
	res := run(t, Config{URL: srv.URL, Connections: 2, Requests: 20, StartAt: at})
	if res.Start.Before(at) {
		t.Errorf("measurement started at %v, before StartAt %v", res.Start, at)
	}
	if !res.StartAt.Equal(at) {
		t.Errorf("Result.StartAt = %v, want %v", res.StartAt, at)
	}
	if res.Requests != 20 {
		t.Errorf("Requests = %d, want 20", res.Requests)
	}

	// A time in the past starts at once.
	start := time.Now()
	run(t, Config{URL: srv.URL, Connections: 2, Requests: 20, StartAt: start.Add(-time.Hour)})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a run with StartAt in the past took %s", d)
	}
}

func TestStartAtWaitEndsWithTheContext(t *testing.T) {
	srv := helloServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 2, Requests: 20, StartAt: start.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned %s after start, want soon after the cancel", d)
	}
	if !res.Interrupted || res.Requests != 0 {
		t.Errorf("Interrupted %v Requests %d: want an interrupted run that sent nothing", res.Interrupted, res.Requests)
	}
}

func TestConnectRateIsSharedAndNeverRoundsToNoPacing(t *testing.T) {
	for _, tt := range []struct {
		rate  float64
		count int
		sum   float64
	}{
		{20000, 56, 20000},
		{10, 4, 10},
		{3, 8, 3}, // a share below one per second: 3/8 each
	} {
		var sum float64
		for i := range tt.count {
			c := (&Config{Connections: 1000, ConnectRate: tt.rate, Shard: result.Shard{Index: i, Count: tt.count}}).withDefaults()
			if err := c.applyShard(); err != nil {
				t.Fatal(err)
			}
			if c.ConnectRate <= 0 {
				t.Fatalf("rate %g over %d shards: shard %d got %g", tt.rate, tt.count, i, c.ConnectRate)
			}
			sum += c.ConnectRate
		}
		if math.Abs(sum-tt.sum) > 1e-9 {
			t.Errorf("rate %g over %d shards: shares add up to %g", tt.rate, tt.count, sum)
		}
	}
}
