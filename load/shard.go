package load

import (
	"errors"
	"fmt"
	"math"

	"github.com/gust-http/gust/result"
)

// applyShard replaces the run's connections (and MaxConnections),
// requests, rate (and each stage's target) and connect rate by this
// shard's share of them. cfg must have its defaults.
func (c *Config) applyShard() error {
	s := c.Shard
	if err := s.Check(); err != nil {
		return err
	}
	if !s.Sharded() {
		return nil
	}
	if c.Source != nil && !sharedSource(c.Source, s) {
		return errors.New("a replay cannot be sharded: give each agent a log of its own")
	}
	n := int64(s.Count)
	if c.Flow != nil {
		if err := c.shareFlow(s); err != nil {
			return err
		}
	}
	if c.Connections > 0 {
		if int64(c.Connections) < n {
			return fmt.Errorf("%d connections cannot be shared by %d shards: give at least %d (-c)", c.Connections, s.Count, s.Count)
		}
		c.Connections = int(s.Share(int64(c.Connections)))
		c.Loops = min(c.Loops, c.Connections)
	}
	if c.Requests > 0 {
		if c.Requests < n {
			return fmt.Errorf("%d requests cannot be shared by %d shards: give at least %d (-n)", c.Requests, s.Count, s.Count)
		}
		c.Requests = s.Share(c.Requests)
	}
	if c.Rate > 0 {
		if c.Rate == math.Trunc(c.Rate) && c.Rate < float64(n) {
			return fmt.Errorf("a rate of %g/s cannot be shared by %d shards: give at least %d/s (--rate)", c.Rate, s.Count, s.Count)
		}
		c.Rate = s.ShareRate(c.Rate)
	}
	if c.MaxConnections > 0 {
		c.MaxConnections = int(s.Share(int64(c.MaxConnections)))
	}
	if len(c.Stages) > 0 {
		shared := make([]Stage, len(c.Stages))
		for i, st := range c.Stages {
			shared[i] = Stage{Duration: st.Duration, Target: s.ShareRate(st.Target)}
		}
		c.Stages = shared
	}
	if c.ConnectRate > 0 {
		// The ramp's pace is the whole run's. Below one per shard, every
		// shard gets an even fraction: a whole share could round down to
		// 0, which means no pacing at all.
		if c.ConnectRate < float64(n) {
			c.ConnectRate /= float64(n)
		} else {
			c.ConnectRate = s.ShareRate(c.ConnectRate)
		}
	}
	return nil
}

// sharedSource reports whether src has taken shard's share of its
// requests itself (a DataSource's rows), so that the run can be sharded.
func sharedSource(src Source, shard result.Shard) bool {
	s, ok := src.(interface{ Sharded(result.Shard) bool })
	return ok && s.Sharded(shard)
}
