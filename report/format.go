package report

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// formatMicros renders a latency in microseconds as a short human duration
// with at most three significant digits: "85us", "1.24ms", "12.4ms", "1.5s".
// The histograms resolve whole microseconds, so nothing below is shown.
func formatMicros(us float64) string {
	switch {
	case !(us > 0): // also catches NaN
		return "0us"
	case us < 999.5:
		return strconv.FormatFloat(math.Round(us), 'f', 0, 64) + "us"
	case us < 999_500:
		return sig3(us/1e3) + "ms"
	default:
		return sig3(us/1e6) + "s"
	}
}

// formatDuration renders a run's length to the millisecond: "10.002s",
// "1m30.5s", "250ms".
func formatDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	return d.Round(time.Millisecond).String()
}

// sig3 formats v (at least 1) with three significant digits and no
// trailing zeros: 1.24, 12.4, 124, 3.
func sig3(v float64) string {
	decimals := 0
	switch {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	return trimZeros(strconv.FormatFloat(v, 'f', decimals, 64))
}

// trimZeros drops trailing zeros after a decimal point, and the point
// itself when nothing is left after it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// formatCount renders n with thousands separators: 600,123.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	s = groupThousands(s)
	if neg {
		return "-" + s
	}
	return s
}

// formatFloat renders v with the given number of decimals and thousands
// separators in its integer part: 60,000.1.
func formatFloat(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	out := groupThousands(whole)
	if frac != "" {
		out += "." + frac
	}
	if v < 0 && strings.Trim(out, "0.,") != "" {
		out = "-" + out
	}
	return out
}

// formatRate renders a request rate: whole rates without decimals
// ("10,000"), others to 0.1 ("2,500.5").
func formatRate(v float64) string {
	if v == math.Trunc(v) {
		return formatFloat(v, 0)
	}
	return formatFloat(v, 1)
}

// formatSpeed renders a replay speed: "1", "2.5", "0.25".
func formatSpeed(v float64) string {
	return trimZeros(strconv.FormatFloat(v, 'f', 3, 64))
}

// groupThousands inserts a comma every three digits from the right of a
// string of decimal digits.
func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// formatBytes renders a byte count in decimal (SI) units: "512 B",
// "74.4 MB".
func formatBytes(n float64) string {
	if !(n > 0) {
		return "0 B"
	}
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for n >= 999.95 && i < len(units)-1 {
		n /= 1000
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(math.Round(n), 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + units[i]
}

// round rounds v to the given number of decimals, mapping NaN and
// infinities to 0 so that JSON encoding never fails.
func round(v float64, decimals int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// plural returns "1 connection" or "50 connections".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatCount(n) + " " + many
}
