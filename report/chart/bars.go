package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Bars describes a grouped bar chart: categories along x, in each one bar
// per series, a legend on the right.
type Bars struct {
	Title      string
	Unit       string   // the value axis's title, and the unit in each bar's tooltip
	XTitle     string   // what the categories are, e.g. "connections"
	Categories []string // one per value of each series
	Series     []Series
}

// The bar charts' geometry, in SVG user units.
const (
	barsWidth, barsHeight                          = 640, 300
	barsLeft, barsRight, barsTop, barsBottom       = 64, 150, 34, 44
	barsYTicks                                     = 5
	barsLegendGap, barsLegendRow, barsLegendSwatch = 14, 16, 11
)

// SVG draws the chart as an inline <svg> element whose grid lines have
// class "grid"; values and axis labels are written as Short writes them.
func (c Bars) SVG() string {
	pw, ph := barsWidth-barsLeft-barsRight, barsHeight-barsTop-barsBottom
	hi := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				hi = max(hi, v)
			}
		}
	}
	p := plot{left: barsLeft, top: barsTop, width: pw, height: ph, max: AxisMax(hi), ticks: barsYTicks}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`,
		barsWidth, barsHeight, barsWidth, barsHeight)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`, barsLeft, html.EscapeString(c.Title))
	p.writeAxis(&b, Short)
	fmt.Fprintf(&b, `<text transform="translate(14,%.1f) rotate(-90)" text-anchor="middle">%s</text>`, float64(barsTop)+float64(ph)/2, html.EscapeString(c.Unit))
	n := max(len(c.Series), 1)
	gw := float64(pw) / float64(max(len(c.Categories), 1))
	bw := gw * 0.8 / float64(n)
	for ci, cat := range c.Categories {
		x0 := float64(barsLeft) + gw*float64(ci) + gw*0.1
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x0+gw*0.4, barsTop+ph+16, html.EscapeString(cat))
		for si, s := range c.Series {
			if ci >= len(s.Values) || math.IsNaN(s.Values[ci]) {
				continue
			}
			v := s.Values[ci]
			bh := float64(ph) * v / p.max
			x, y := x0+bw*float64(si), float64(barsTop+ph)-bh
			tip := fmt.Sprintf("<title>%s, %s %s: %s %s</title>", html.EscapeString(s.Name), html.EscapeString(cat), html.EscapeString(c.XTitle), Short(v), html.EscapeString(c.Unit))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s>%s</rect>`, x, y, max(bw-1, 1), bh, fill(s, "4 3"), tip)
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, float64(barsLeft)+float64(pw)/2, barsHeight-6, html.EscapeString(c.XTitle))
	for si, s := range c.Series {
		y := barsTop + 4 + si*barsLegendRow
		lx := barsLeft + pw + barsLegendGap
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`, lx, y, barsLegendSwatch, barsLegendSwatch, fill(s, "3 2"))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, lx+barsLegendSwatch+5, y+10, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>")
	return b.String()
}

// fill returns the attributes that paint a bar of s: its colour, or for an
// ideal series a dashed outline with the given dashes.
func fill(s Series, dashes string) string {
	if s.Ideal {
		return fmt.Sprintf(`fill="none" stroke="#333" stroke-dasharray="%s"`, dashes)
	}
	return fmt.Sprintf(`fill="%s"`, html.EscapeString(s.Color))
}
