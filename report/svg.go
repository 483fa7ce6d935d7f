package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The timeline charts' geometry, in SVG user units: a plot area of
// chartWidth x chartHeight inside margins for the axis labels.
const (
	chartWidth   = 640
	chartHeight  = 160
	chartLeft    = 64 // room for the y axis labels
	chartBottom  = 22 // room for the x axis labels
	chartTop     = 20 // room for the title and legend
	chartRight   = 12
	chartYTicks  = 4
	chartXLabels = 10 // at most this many seconds are labelled
)

// chartSeries is one named line of a chart, one value per second.
type chartSeries struct {
	name   string
	color  string
	values []float64
}

// axisMax rounds v up to 1, 2, 2.5 or 5 times a power of ten, so that the
// y axis ticks read well.
func axisMax(v float64) float64 {
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

// timelineChart draws per-second values as bars (one series) or lines
// (several), with a titled y axis labelled by label and every few seconds
// labelled on the x axis. It returns an inline <svg> element.
func timelineChart(title string, series []chartSeries, label func(float64) string) string {
	n := 0
	top := 0.0
	for _, s := range series {
		n = max(n, len(s.values))
		for _, v := range s.values {
			top = max(top, v)
		}
	}
	top = axisMax(top)
	w, h := chartLeft+chartWidth+chartRight, chartTop+chartHeight+chartBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="13" class="title">%s</text>`, chartLeft, html.EscapeString(title))
	if len(series) > 1 {
		x := chartLeft + chartWidth
		for i := len(series) - 1; i >= 0; i-- {
			s := series[i]
			fmt.Fprintf(&b, `<text x="%d" y="13" text-anchor="end" fill="%s">%s</text>`, x, s.color, html.EscapeString(s.name))
			x -= 8*len(s.name) + 12
		}
	}
	y := func(v float64) float64 { return chartTop + chartHeight - v/top*chartHeight }
	for i := 0; i <= chartYTicks; i++ {
		v := top * float64(i) / chartYTicks
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, chartLeft, chartLeft+chartWidth, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y(v)+4, html.EscapeString(label(v)))
	}
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no seconds measured</text></svg>`, chartLeft+8, chartTop+chartHeight/2)
		return b.String()
	}
	step := float64(chartWidth) / float64(n)
	every := (n + chartXLabels - 1) / chartXLabels
	for i := 0; i < n; i += every {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%ds</text>`,
			chartLeft+step*(float64(i)+0.5), chartTop+chartHeight+16, i)
	}
	if len(series) == 1 {
		s := series[0]
		for i, v := range s.values {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%ds: %s</title></rect>`,
				chartLeft+step*float64(i)+step*0.1, y(v), step*0.8, chartTop+chartHeight-y(v), s.color, i, html.EscapeString(label(v)))
		}
	} else {
		for _, s := range series {
			pts := make([]string, len(s.values))
			for i, v := range s.values {
				pts[i] = fmt.Sprintf("%.1f,%.1f", chartLeft+step*(float64(i)+0.5), y(v))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), s.color)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// hbar draws a horizontal bar of n out of most in a fixed-width inline
// <svg>, for the latency distribution's rows.
func hbar(n, most int64) string {
	const width, height = 320, 12
	w := 0.0
	if most > 0 {
		w = float64(n) / float64(most) * width
	}
	if n > 0 && w < 1 {
		w = 1 // too small to see, but not nothing
	}
	return fmt.Sprintf(`<svg width="%d" height="%d"><rect width="%.1f" height="%d" fill="#4e79a7"/></svg>`, width, height, w, height)
}
