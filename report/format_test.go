package report

import (
	"math"
	"testing"
	"time"
)

func TestFormatMicros(t *testing.T) {
	tests := []struct {
		us   float64
		want string
	}{
		{0, "0us"},
		{-5, "0us"},
		{math.NaN(), "0us"},
		{0.4, "0us"},
		{1, "1us"},
		{85, "85us"},
		{85.4, "85us"},
		{999, "999us"},
		{999.6, "1ms"},
		{1000, "1ms"},
		{1240, "1.24ms"},
		{1200, "1.2ms"},
		{12_400, "12.4ms"},
		{124_400, "124ms"},
		{999_400, "999ms"},
		{999_600, "1s"},
		{1_002_000, "1s"},
		{1_500_000, "1.5s"},
		{3_600_000_000, "3600s"},
	}
	for _, tt := range tests {
		if got := formatMicros(tt.us); got != tt.want {
			t.Errorf("formatMicros(%v) = %q, want %q", tt.us, got, tt.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{250 * time.Millisecond, "250ms"},
		{10*time.Second + 2*time.Millisecond, "10.002s"},
		{10*time.Second + 2400*time.Microsecond, "10.002s"},
		{90*time.Second + 500*time.Millisecond, "1m30.5s"},
	}
	for _, tt := range tests {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{999, "999"},
		{1000, "1,000"},
		{600_123, "600,123"},
		{1_234_567, "1,234,567"},
		{-1_234, "-1,234"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
	}
	for _, tt := range tests {
		if got := formatCount(tt.n); got != tt.want {
			t.Errorf("formatCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		v        float64
		decimals int
		want     string
	}{
		{0, 1, "0.0"},
		{60_000.06, 1, "60,000.1"},
		{1234.6, 0, "1,235"},
		{-1234.5, 1, "-1,234.5"},
		{-0.01, 1, "0.0"},
		{math.NaN(), 1, "0.0"},
		{math.Inf(1), 1, "0.0"},
	}
	for _, tt := range tests {
		if got := formatFloat(tt.v, tt.decimals); got != tt.want {
			t.Errorf("formatFloat(%v, %d) = %q, want %q", tt.v, tt.decimals, got, tt.want)
		}
	}
}

func TestFormatRate(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{10000, "10,000"},
		{2500.5, "2,500.5"},
		{0.25, "0.2"},
	}
	for _, tt := range tests {
		if got := formatRate(tt.v); got != tt.want {
			t.Errorf("formatRate(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    float64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{74_400_000, "74.4 MB"},
		{999_960, "1.0 MB"},
		{2.5e12, "2.5 TB"},
		{math.NaN(), "0 B"},
	}
	for _, tt := range tests {
		if got := formatBytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestRound(t *testing.T) {
	tests := []struct {
		v        float64
		decimals int
		want     float64
	}{
		{60000.06, 1, 60000.1},
		{812.449, 1, 812.4},
		{10.0024, 3, 10.002},
		{math.NaN(), 1, 0},
		{math.Inf(-1), 1, 0},
	}
	for _, tt := range tests {
		if got := round(tt.v, tt.decimals); got != tt.want {
			t.Errorf("round(%v, %d) = %v, want %v", tt.v, tt.decimals, got, tt.want)
		}
	}
}
