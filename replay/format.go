package replay

import (
	"fmt"
	"strings"
)

// Format is a log format.
type Format int

// The formats Source reads.
const (
	// Auto picks JSON lines when the first non-blank line starts with
	// '{', and the common log format (with or without the combined
	// format's referer and user agent) otherwise.
	Auto Format = iota
	// Combined is nginx's and Apache's combined log format.
	Combined
	// Common is the common log format; a referer and user agent, if
	// present, are sent too.
	Common
	// JSON is one JSON object per line.
	JSON
)

var formatNames = [...]string{Auto: "auto", Combined: "combined", Common: "common", JSON: "json"}

// String returns the format's name, as ParseFormat reads it.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the Format named s: auto, combined, common or json.
func ParseFormat(s string) (Format, error) {
	for f, name := range formatNames {
		if strings.EqualFold(s, name) {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("unknown log format %q: use auto, combined, common or json", s)
}

// detect tells JSON lines from the common log format by the first line.
func detect(line []byte) Format {
	for _, c := range line {
		switch c {
		case ' ', '\t':
			continue
		case '{':
			return JSON
		}
		break
	}
	return Common
}

// setFormat records the format found, for Stats.
func (s *Source) setFormat(f Format) {
	s.mu.Lock()
	s.format = f
	s.mu.Unlock()
}
