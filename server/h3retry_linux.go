package server

import "time"

const (
	// h3RetryRate and h3RetryBurst bound the Retries a loop sends: under
	// a flood of Initials each Retry is a datagram built, sealed and sent
	// (about 11 us of the loop's CPU here), and a flood of 20,000 a
	// second took a fifth of a core from the connections already open.
	// Past the budget an Initial is dropped (its client, if real, sends
	// it again after its probe timeout), which costs the read alone.
	h3RetryRate  = 4096
	h3RetryBurst = 1024
)

// retryBudget is a token bucket of Retries: h3RetryRate a second, at most
// h3RetryBurst at once. It counts in nanoseconds of credit; a Retry costs
// a second's share.
type retryBudget struct {
	credit  int64 // ns
	last    int64 // when credit was last brought up to date
	started bool  // the bucket was filled (at the first take)
}

const retryCost = int64(time.Second) / h3RetryRate

// take reports whether a Retry may go out at now (ns on the loop's
// clock), and spends it if so.
func (b *retryBudget) take(now int64) bool {
	if !b.started {
		b.credit, b.last, b.started = h3RetryBurst*retryCost, now, true
	} else if now > b.last { // a clock that went back gives nothing
		b.credit = min(b.credit+(now-b.last), h3RetryBurst*retryCost)
		b.last = now
	}
	if b.credit < retryCost {
		return false
	}
	b.credit -= retryCost
	return true
}
