package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// AxisMax rounds v up to 1, 2, 2.5 or 5 times a power of ten, so that the
// value axis's ticks read well; it returns 1 for a v that is not positive.
func AxisMax(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// plot is a chart's plot area in SVG user units and its value axis: zero
// at the bottom, top at the top, ticks+1 labelled grid lines.
type plot struct {
	left, top, width, height int
	max                      float64
	ticks                    int
}

// y returns the y coordinate of the value v.
func (p plot) y(v float64) float64 {
	return float64(p.top+p.height) - v/p.max*float64(p.height)
}

// writeAxis writes the value axis: a grid line at every tick, labelled by
// label at the left of the plot area.
func (p plot) writeAxis(b *strings.Builder, label func(float64) string) {
	for i := 0; i <= p.ticks; i++ {
		v := p.max * float64(i) / float64(p.ticks)
		y := p.y(v)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, p.left, p.left+p.width, y, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`, p.left-6, y+4, html.EscapeString(label(v)))
	}
}

// Short formats an axis value compactly: 1.5k, 2M, 12, 0.25.
func Short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e6), ".0") + "M"
	case a >= 1e3:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e3), ".0") + "k"
	case a >= 10 || a == 0:
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
