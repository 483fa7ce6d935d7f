package lab

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// series is one named row of values, one per category; NaN is a gap.
type series struct {
	name   string
	values []float64
	ideal  bool // drawn as a dashed outline: a reference, not a measurement
}

// palette holds one colour per server, in order.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// short formats an axis value compactly: 1.5k, 2M.
func short(v float64) string {
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

// barChart renders a grouped bar chart as an inline SVG: categories along
// x (connections), one bar per series in each, a legend on the right.
func barChart(title, unit string, categories []string, ss []series, colors map[string]string) string {
	const (
		w, h                     = 640, 300
		left, right, top, bottom = 64, 150, 34, 44
	)
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	hi := 0.0
	for _, s := range ss {
		for _, v := range s.values {
			if !math.IsNaN(v) {
				hi = max(hi, v)
			}
		}
	}
	hi = niceCeil(hi)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`, w, h, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`, left, html.EscapeString(title))
	for i := 0; i <= 5; i++ {
		v := hi * float64(i) / 5
		y := float64(top) + ph - ph*float64(i)/5
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, float64(left)+pw, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dy="4">%s</text>`, left-6, y, short(v))
	}
	fmt.Fprintf(&b, `<text transform="translate(14,%.1f) rotate(-90)" text-anchor="middle">%s</text>`, float64(top)+ph/2, html.EscapeString(unit))
	n := max(len(ss), 1)
	gw := pw / float64(max(len(categories), 1))
	bw := gw * 0.8 / float64(n)
	for ci, cat := range categories {
		x0 := float64(left) + gw*float64(ci) + gw*0.1
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x0+gw*0.4, top+int(ph)+16, html.EscapeString(cat))
		for si, s := range ss {
			if ci >= len(s.values) || math.IsNaN(s.values[ci]) {
				continue
			}
			v := s.values[ci]
			bh := ph * v / hi
			x, y := x0+bw*float64(si), float64(top)+ph-bh
			tip := fmt.Sprintf("<title>%s, %s connections: %s %s</title>", html.EscapeString(s.name), html.EscapeString(cat), short(v), html.EscapeString(unit))
			if s.ideal {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333" stroke-dasharray="4 3">%s</rect>`, x, y, max(bw-1, 1), bh, tip)
			} else {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">%s</rect>`, x, y, max(bw-1, 1), bh, colors[s.name], tip)
			}
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">connections</text>`, float64(left)+pw/2, h-6)
	for si, s := range ss {
		y := top + 4 + si*16
		lx := left + int(pw) + 14
		if s.ideal {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="11" height="11" fill="none" stroke="#333" stroke-dasharray="3 2"/>`, lx, y)
		} else {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="11" height="11" fill="%s"/>`, lx, y, colors[s.name])
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, lx+16, y+10, html.EscapeString(s.name))
	}
	b.WriteString("</svg>")
	return b.String()
}
