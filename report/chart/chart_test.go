package chart

import (
	"math"
	"strings"
	"testing"
)

func TestAxisMax(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {math.NaN(), 1}, {1, 1}, {1.5, 2}, {2, 2}, {2.1, 2.5}, {3, 5}, {7, 10}, {24, 25}, {95000, 100000}, {0.03, 0.05},
	} {
		if got := AxisMax(tc.in); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("AxisMax(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestShort(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.25, "0.25"}, {0.5, "0.5"}, {12, "12"}, {1500, "1.5k"}, {2000, "2k"}, {2.5e6, "2.5M"}, {3e6, "3M"},
	} {
		if got := Short(tc.in); got != tc.want {
			t.Errorf("Short(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestChartsDrawTheirParts(t *testing.T) {
	two := []Series{{Name: "a", Color: Color(0), Values: []float64{1, 2}}, {Name: "b<", Color: Color(1), Values: []float64{3, math.NaN()}}}
	bars := Bars{Title: "req/s", Unit: "req/s", XTitle: "connections", Categories: []string{"200", "2000"},
		Series: append(two, Series{Name: "ideal", Values: []float64{4, 4}, Ideal: true})}
	for _, tc := range []struct {
		name       string
		svg        string
		want       []string
		grid, bars int
	}{
		{"a grouped bar chart skips gaps and outlines the ideal", bars.SVG(),
			[]string{`>5</text>`, `b&lt;`, `stroke-dasharray="4 3"`, `<title>a, 200 connections: 1 req/s</title>`}, 6, 5 + 3},
		{"a timeline of one series is bars", Timeline("rps", two[:1], Short), []string{`<svg class="chart"`, `>2</text>`, `<title>1s: 2</title>`}, 5, 2},
		{"a timeline of two series is lines with a legend",
			Timeline("lat", []Series{two[0], {Name: "c", Color: Color(2), Values: []float64{5, 6}}}, Short),
			[]string{`<polyline`, `fill="#e15759">c</text>`, `>10</text>`}, 5, 0},
		{"a timeline with no seconds says so", Timeline("none", nil, Short), []string{"no seconds measured"}, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.svg, w) {
					t.Errorf("lacks %q:\n%s", w, tc.svg)
				}
			}
			if n := strings.Count(tc.svg, `class="grid"`); n != tc.grid {
				t.Errorf("%d grid lines, want %d", n, tc.grid)
			}
			if n := strings.Count(tc.svg, "<rect"); n != tc.bars {
				t.Errorf("%d rects, want %d", n, tc.bars)
			}
			if !strings.HasSuffix(tc.svg, "</svg>") {
				t.Error("not closed")
			}
		})
	}
}

func TestHBar(t *testing.T) {
	for _, tc := range []struct {
		n, most int64
		want    string
	}{
		{0, 0, `width="0.0"`}, {1, 1000000, `width="1.0"`}, {5, 10, `width="160.0"`}, {10, 10, `width="320.0"`},
	} {
		if got := HBar(tc.n, tc.most); !strings.Contains(got, tc.want) {
			t.Errorf("HBar(%d, %d) = %s, want %s", tc.n, tc.most, got, tc.want)
		}
	}
}

func TestScatterDrawsPointsOnALogAxis(t *testing.T) {
	s := Scatter{Title: "lat", XTitle: "req/s", YTitle: "latency", XLabel: Short, YLabel: Short,
		Series: []XYSeries{
			{Name: "p50", Color: Color(0), X: []float64{1000, 2000, 3000}, Y: []float64{50, 60, 0}}, // the 0 is left out
			{Name: "p99<", Color: Color(1), X: []float64{1000, 2000, 3000}, Y: []float64{200, 900, 45000}},
		},
		Refs: []Ref{{Label: "p99<10ms", Y: 10000}}}
	svg := s.SVG()
	// Decades 10 to 100k: 5 horizontal grid lines; 6 vertical ones.
	if n := strings.Count(svg, `class="grid"`); n != 5+6 {
		t.Errorf("%d grid lines, want 11:\n%s", n, svg)
	}
	if n := strings.Count(svg, "<circle"); n != 5 {
		t.Errorf("%d points, want 5", n)
	}
	for _, want := range []string{`stroke-dasharray="5,4"`, `>p99&lt;10ms</text>`, `>p99&lt;</text>`, `<title>p99&lt;: 45k at 3k</title>`, `>100k</text>`, `>10</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("lacks %q:\n%s", want, svg)
		}
	}
	if empty := (Scatter{XLabel: Short, YLabel: Short}).SVG(); strings.Contains(empty, "NaN") || strings.Contains(empty, "Inf") {
		t.Errorf("an empty chart draws NaN or Inf: %s", empty)
	}
}
