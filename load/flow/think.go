package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Think is a pause after a step's response: fixed, uniform between two
// durations, or exponential around a mean. The zero Think is no pause.
type Think struct {
	kind     thinkKind
	min, max time.Duration // fixed: min; uniform: min to max; exponential: mean in min
}

type thinkKind uint8

const (
	thinkNone thinkKind = iota
	thinkFixed
	thinkUniform
	thinkExp
)

// ParseThink reads a think time: "1s" (fixed), "uniform(1s, 3s)" or
// "exponential(2s)" (mean 2s; "exp(2s)" too).
func ParseThink(s string) (Think, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return Think{}, fmt.Errorf("want a duration such as 1s, uniform(1s, 3s) or exponential(2s), not %q", s)
		}
		return Think{kind: thinkFixed, min: d}, nil
	}
	if !strings.HasSuffix(s, ")") {
		return Think{}, fmt.Errorf("%q lacks its closing parenthesis", s)
	}
	fn, args := s[:open], strings.Split(s[open+1:len(s)-1], ",")
	ds := make([]time.Duration, len(args))
	for i, a := range args {
		d, err := time.ParseDuration(strings.TrimSpace(a))
		if err != nil || d < 0 {
			return Think{}, fmt.Errorf("%q: %q is not a duration", s, strings.TrimSpace(a))
		}
		ds[i] = d
	}
	switch {
	case fn == "uniform" && len(ds) == 2 && ds[0] <= ds[1]:
		return Think{kind: thinkUniform, min: ds[0], max: ds[1]}, nil
	case (fn == "exponential" || fn == "exp") && len(ds) == 1:
		return Think{kind: thinkExp, min: ds[0]}, nil
	}
	return Think{}, fmt.Errorf("%q: want uniform(min, max) with min <= max or exponential(mean)", s)
}

// draw returns one pause in nanoseconds, from rng.
func (t Think) draw(rng *rand.Rand) int64 {
	switch t.kind {
	case thinkFixed:
		return int64(t.min)
	case thinkUniform:
		if t.max == t.min {
			return int64(t.min)
		}
		return int64(t.min) + rng.Int64N(int64(t.max-t.min)+1)
	case thinkExp:
		// Capped at twenty means, so that one draw cannot stall a user.
		return int64(math.Min(rng.ExpFloat64(), 20) * float64(t.min))
	}
	return 0
}

// String returns t as ParseThink reads it.
func (t Think) String() string {
	switch t.kind {
	case thinkFixed:
		return t.min.String()
	case thinkUniform:
		return fmt.Sprintf("uniform(%s, %s)", t.min, t.max)
	case thinkExp:
		return fmt.Sprintf("exponential(%s)", t.min)
	}
	return "0s"
}
