package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Scatter describes a chart of points joined by lines, x on a linear axis
// from zero and y on a logarithmic one (latencies span decades: a
// saturated step's seconds beside an idle one's microseconds), with
// horizontal reference lines (an objective's limit) and a legend.
type Scatter struct {
	Title  string
	XTitle string // what x is, e.g. "achieved req/s"
	YTitle string // what y is, e.g. "latency"
	// XLabel and YLabel format the axes' values.
	XLabel, YLabel func(float64) string
	Series         []XYSeries
	// Refs are horizontal dashed lines at y values, each with a label.
	Refs []Ref
}

// XYSeries is one named line of a Scatter: points in the order given,
// each at (X[i], Y[i]); a point with a y not above zero is left out.
type XYSeries struct {
	Name  string
	Color string
	X, Y  []float64
}

// Ref is a horizontal reference line of a Scatter.
type Ref struct {
	Label string
	Y     float64
}

// The scatter chart's geometry, in SVG user units.
const (
	scatterWidth, scatterHeight                      = 640, 320
	scatterLeft, scatterRight                        = 64, 120
	scatterTop, scatterBottom                        = 30, 44
	scatterXTicks                                    = 5
	scatterLegendRow, scatterLegendSwatch, scatterDy = 16, 11, 4
)

// SVG draws the chart as an inline <svg> element of class "chart" whose
// grid lines have class "grid"; each point has a tooltip with its values.
func (c Scatter) SVG() string {
	pw, ph := scatterWidth-scatterLeft-scatterRight, scatterHeight-scatterTop-scatterBottom
	xmax, ylo, yhi := 0.0, math.Inf(1), 0.0
	for _, s := range c.Series {
		for i := range min(len(s.X), len(s.Y)) {
			if s.Y[i] > 0 {
				xmax, ylo, yhi = max(xmax, s.X[i]), min(ylo, s.Y[i]), max(yhi, s.Y[i])
			}
		}
	}
	for _, r := range c.Refs {
		if r.Y > 0 {
			ylo, yhi = min(ylo, r.Y), max(yhi, r.Y)
		}
	}
	if yhi == 0 {
		ylo, yhi = 1, 10
	}
	// Whole decades, so that every grid line is a power of ten.
	d0, d1 := math.Floor(math.Log10(ylo)), math.Ceil(math.Log10(yhi))
	if d1 <= d0 {
		d1 = d0 + 1
	}
	xAxis := AxisMax(xmax)
	x := func(v float64) float64 { return float64(scatterLeft) + v/xAxis*float64(pw) }
	y := func(v float64) float64 {
		return float64(scatterTop+ph) - (math.Log10(v)-d0)/(d1-d0)*float64(ph)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		scatterWidth, scatterHeight, scatterWidth, scatterHeight, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="16" class="title">%s</text>`, scatterLeft, html.EscapeString(c.Title))
	for d := d0; d <= d1; d++ {
		v := math.Pow(10, d)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, scatterLeft, scatterLeft+pw, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`, scatterLeft-6, y(v)+4, html.EscapeString(c.YLabel(v)))
	}
	for i := 0; i <= scatterXTicks; i++ {
		v := xAxis * float64(i) / scatterXTicks
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/>`, x(v), x(v), scatterTop, scatterTop+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(v), scatterTop+ph+16, html.EscapeString(c.XLabel(v)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, float64(scatterLeft)+float64(pw)/2, scatterTop+ph+34, html.EscapeString(c.XTitle))
	fmt.Fprintf(&b, `<text transform="translate(14,%.1f) rotate(-90)" text-anchor="middle">%s</text>`, float64(scatterTop)+float64(ph)/2, html.EscapeString(c.YTitle))
	for _, r := range c.Refs {
		if r.Y > 0 {
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#a00" stroke-dasharray="5,4"/>`, scatterLeft, scatterLeft+pw, y(r.Y), y(r.Y))
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" fill="#a00">%s</text>`, scatterLeft+pw+6, y(r.Y)+scatterDy, html.EscapeString(r.Label))
		}
	}
	for si, s := range c.Series {
		var pts []string
		for i := range min(len(s.X), len(s.Y)) {
			if s.Y[i] > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.X[i]), y(s.Y[i])))
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(pts, " "), s.Color)
		}
		for i := range min(len(s.X), len(s.Y)) {
			if s.Y[i] > 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s at %s</title></circle>`,
					x(s.X[i]), y(s.Y[i]), s.Color, html.EscapeString(s.Name), html.EscapeString(c.YLabel(s.Y[i])), html.EscapeString(c.XLabel(s.X[i])))
			}
		}
		ly := scatterTop + scatterLegendRow*si
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, scatterLeft+pw+6, ly, scatterLegendSwatch, scatterLegendSwatch, s.Color)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, scatterLeft+pw+6+scatterLegendSwatch+4, ly+scatterLegendSwatch-1, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
