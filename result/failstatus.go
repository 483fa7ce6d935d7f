package result

import (
	"fmt"
	"strconv"
	"strings"
)

// StatusSet is a set of HTTP status codes counted as failed requests by
// the error_rate threshold (gust load --fail-status), as ranges of codes.
// The zero StatusSet holds none.
type StatusSet struct {
	ranges [][2]int
	text   string
}

// ParseStatusSet reads a comma-separated list of status codes (503),
// classes (5xx) and ranges (500-504), e.g. "5xx" or "429,5xx". Codes are
// 100 to 599. An empty string is the empty set.
func ParseStatusSet(s string) (StatusSet, error) {
	set := StatusSet{text: s}
	if strings.TrimSpace(s) == "" {
		return StatusSet{}, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		lo, hi, err := statusRange(part)
		if err != nil {
			return StatusSet{}, fmt.Errorf("status %q: %w", part, err)
		}
		set.ranges = append(set.ranges, [2]int{lo, hi})
	}
	return set, nil
}

// statusRange reads one item of a StatusSet: 5xx, 503 or 500-504.
func statusRange(part string) (int, int, error) {
	const use = "give a code (503), a class (5xx) or a range (500-504) from 100 to 599"
	if c, ok := strings.CutSuffix(part, "xx"); ok && len(c) == 1 && c[0] >= '1' && c[0] <= '5' {
		lo := int(c[0]-'0') * 100
		return lo, lo + 99, nil
	}
	a, b, isRange := strings.Cut(part, "-")
	lo, err := strconv.Atoi(a)
	if err != nil || lo < 100 || lo > 599 {
		return 0, 0, fmt.Errorf("not a status: %s", use)
	}
	hi := lo
	if isRange {
		hi, err = strconv.Atoi(b)
		if err != nil || hi < lo || hi > 599 {
			return 0, 0, fmt.Errorf("not a range: %s", use)
		}
	}
	return lo, hi, nil
}

// Contains reports whether code is in s.
func (s StatusSet) Contains(code int) bool {
	for _, r := range s.ranges {
		if code >= r[0] && code <= r[1] {
			return true
		}
	}
	return false
}

// String returns the set as it was written.
func (s StatusSet) String() string { return s.text }
