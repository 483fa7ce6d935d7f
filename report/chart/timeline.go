package chart

import (
	"fmt"
	"html"
	"strings"
)

// The timeline charts' geometry, in SVG user units: a plot area of
// timelineWidth x timelineHeight inside margins for the axis labels.
const (
	timelineWidth   = 640
	timelineHeight  = 160
	timelineLeft    = 64 // room for the y axis labels
	timelineBottom  = 22 // room for the x axis labels
	timelineTop     = 20 // room for the title and legend
	timelineRight   = 12
	timelineYTicks  = 4
	timelineXLabels = 10 // at most this many seconds are labelled
)

// Timeline draws per-second values as bars (one series) or lines
// (several, with a legend), with a titled value axis labelled by label and
// every few seconds labelled on the x axis. It returns an inline <svg>
// element of class "chart"; its grid lines have class "grid".
func Timeline(title string, series []Series, label func(float64) string) string {
	n := 0
	hi := 0.0
	for _, s := range series {
		n = max(n, len(s.Values))
		for _, v := range s.Values {
			hi = max(hi, v)
		}
	}
	p := plot{left: timelineLeft, top: timelineTop, width: timelineWidth, height: timelineHeight, max: AxisMax(hi), ticks: timelineYTicks}
	w, h := timelineLeft+timelineWidth+timelineRight, timelineTop+timelineHeight+timelineBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="13" class="title">%s</text>`, timelineLeft, html.EscapeString(title))
	if len(series) > 1 {
		x := timelineLeft + timelineWidth
		for i := len(series) - 1; i >= 0; i-- {
			s := series[i]
			fmt.Fprintf(&b, `<text x="%d" y="13" text-anchor="end" fill="%s">%s</text>`, x, s.Color, html.EscapeString(s.Name))
			x -= 8*len(s.Name) + 12
		}
	}
	p.writeAxis(&b, label)
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no seconds measured</text></svg>`, timelineLeft+8, timelineTop+timelineHeight/2)
		return b.String()
	}
	step := float64(timelineWidth) / float64(n)
	every := (n + timelineXLabels - 1) / timelineXLabels
	for i := 0; i < n; i += every {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%ds</text>`,
			timelineLeft+step*(float64(i)+0.5), timelineTop+timelineHeight+16, i)
	}
	if len(series) == 1 {
		s := series[0]
		for i, v := range s.Values {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%ds: %s</title></rect>`,
				timelineLeft+step*float64(i)+step*0.1, p.y(v), step*0.8, timelineTop+timelineHeight-p.y(v), s.Color, i, html.EscapeString(label(v)))
		}
	} else {
		for _, s := range series {
			pts := make([]string, len(s.Values))
			for i, v := range s.Values {
				pts[i] = fmt.Sprintf("%.1f,%.1f", timelineLeft+step*(float64(i)+0.5), p.y(v))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), s.Color)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// HBar draws a horizontal bar of n out of most in a fixed-width inline
// <svg>, as in the rows of a latency distribution; a bar too small to see
// but not zero is drawn one unit wide.
func HBar(n, most int64) string {
	const width, height = 320, 12
	w := 0.0
	if most > 0 {
		w = float64(n) / float64(most) * width
	}
	if n > 0 && w < 1 {
		w = 1
	}
	return fmt.Sprintf(`<svg width="%d" height="%d"><rect width="%.1f" height="%d" fill="%s"/></svg>`, width, height, w, height, palette[0])
}
