package result

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Shard names one of Count equal shares of a run, so that Count agents on
// different machines can each run one and Merge can put their results
// together. Index counts from 0, as a Kubernetes Indexed Job's completion
// index does. The zero Shard is the whole run.
type Shard struct {
	// Index is the share's number, from 0 to Count-1.
	Index int
	// Count is how many shares the run is split into; 0 for the whole.
	Count int
}

// ParseShard reads a shard written as "I/N", e.g. "0/4" for the first of
// four shares.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("bad shard %q: write it as I/N, e.g. 0/4 for the first of 4 shares", s)
	}
	sh := Shard{Index: index, Count: count}
	return sh, sh.Check()
}

// String returns "I/N", or "" for the whole run.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// Sharded reports whether s is a share of a run rather than the whole.
func (s Shard) Sharded() bool { return s.Count > 0 }

// Check reports whether s names a share that exists: the zero Shard, or an
// Index from 0 to Count-1.
func (s Shard) Check() error {
	switch {
	case s.Count == 0 && s.Index == 0:
		return nil
	case s.Count < 1:
		return fmt.Errorf("bad shard %d/%d: the number of shares must be at least 1", s.Index, s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("bad shard %d/%d: the index counts from 0, so it runs from 0 to %d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// Share returns this shard's part of n: n/Count, plus one for the first
// n%Count shards, so the shares add up to n exactly.
func (s Shard) Share(n int64) int64 {
	count := int64(s.Count)
	part := n / count
	if int64(s.Index) < n%count {
		part++
	}
	return part
}

// ShareRate returns this shard's part of a rate. A whole rate is shared like a
// count (1001/s over 4 is 251, 250, 250, 250), so every agent runs at a
// whole rate and the shares add up exactly; any other rate is divided
// evenly.
func (s Shard) ShareRate(r float64) float64 {
	if r == math.Trunc(r) && r < 1<<53 {
		return float64(s.Share(int64(r)))
	}
	return r / float64(s.Count)
}
