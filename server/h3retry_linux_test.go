package server

import (
	"crypto/rand"
	"net"
	"testing"
	"time"
)

// TestRetryBudgetAllowsABurstThenTheRate: a full bucket lets h3RetryBurst
// Retries through at once, then h3RetryRate a second; idle time refills it
// up to the burst, never past.
func TestRetryBudgetAllowsABurstThenTheRate(t *testing.T) {
	var b retryBudget
	now := int64(time.Hour) // any clock
	taken := func(n int, at int64) int {
		k := 0
		for range n {
			if b.take(at) {
				k++
			}
		}
		return k
	}
	for _, tc := range []struct {
		name string
		wait time.Duration // before the step
		ask  int
		want int
	}{
		{"a burst at once", 0, 5000, h3RetryBurst},
		{"none left in the same instant", 0, 10, 0},
		{"a tenth of a second's share", 100 * time.Millisecond, 5000, h3RetryRate / 10},
		{"an idle minute refills the burst, not more", time.Minute, 5000, h3RetryBurst},
		{"a clock that went back gives nothing", -time.Second, 10, 0},
	} {
		now += int64(tc.wait)
		if got := taken(tc.ask, now); got != tc.want {
			t.Errorf("%s: %d Retries of %d asked, want %d", tc.name, got, tc.ask, tc.want)
		}
	}
}

// TestHTTP3RetriesStayWithinTheBudget: once enough handshakes are in
// progress for Retry to engage, a flood of Initials (forged: a long
// header with a fresh connection ID, no token, is all a Retry looks at)
// gets at most the budget's Retries; the rest are dropped.
func TestHTTP3RetriesStayWithinTheBudget(t *testing.T) {
	s, addr := startH3(t, Config{Mode: Inline, ReadHeaderTimeout: 10 * time.Second})
	c, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range h3RetryAbove {
		c.Write(clientInitial(t))
	}
	h3WaitFor(t, "the handshakes that make Retry engage", 10*time.Second, func() bool { return s.Stats().QUICConns >= h3RetryAbove })
	forged := func() []byte {
		d := make([]byte, h3MinInitial)
		rand.Read(d)
		d[0] = 0xc0                      // a long header, type Initial
		copy(d[1:5], []byte{0, 0, 0, 1}) // version 1
		d[5] = 8                         // an 8-byte Destination Connection ID (random), then
		d[14] = 0                        // an empty Source Connection ID,
		d[15] = 0                        // no token,
		d[16], d[17] = 0x44, 0x9e        // and a length of 1200 - 18 = 1182 (a varint)
		return d
	}
	st0 := s.Stats()
	start := time.Now()
	const flood = 6000
	sent := 0
	for sent < flood {
		for range 200 {
			c.Write(forged())
			sent++
		}
		// Let the loop keep up, so that the socket's buffer drops few.
		h3WaitFor(t, "the flood read", 10*time.Second, func() bool {
			st := s.Stats()
			return (st.QUICRetries-st0.QUICRetries)+(st.QUICDropped-st0.QUICDropped) >= int64(sent)*9/10
		})
	}
	st := s.Stats()
	elapsed := time.Since(start) // after the counts: every Retry counted fell within it
	retries, dropped := st.QUICRetries-st0.QUICRetries, st.QUICDropped-st0.QUICDropped
	budget := int64(h3RetryBurst) + int64(elapsed.Seconds()*h3RetryRate) + 1
	t.Logf("%d Initials in %v: %d Retries (budget %d), %d dropped", flood, elapsed, retries, budget, dropped)
	if retries > budget {
		t.Errorf("%d Retries in %v; the budget allows %d", retries, elapsed, budget)
	}
	if retries+dropped > budget && dropped == 0 {
		t.Errorf("%d Initials read past a budget of %d, none dropped", retries+dropped, budget)
	}
	if retries == 0 {
		t.Error("no Retry at all: the flood never reached the gate")
	}
}
