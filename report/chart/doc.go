// Package chart draws the inline SVG charts of gust's HTML reports: the
// per-second timelines of report.HTML, the grouped bar charts of gust
// bench's report.html and the small bars of a latency distribution. One
// value axis (AxisMax and its grid) serves every chart, so that the two
// reports round and label their axes alike. Every function returns a
// self-contained <svg> element and is deterministic for its input.
//
// # Files
//
//   - axis.go: AxisMax (1, 2, 2.5 or 5 times a power of ten), the plot area and its grid, Short labels
//   - bars.go: Bars, a grouped bar chart with a legend (gust bench's report)
//   - scatter.go: Scatter, points joined by lines on a log latency axis, with reference lines
//   - series.go: Series, a named row of values, and Color, the palette
//   - timeline.go: Timeline, a per-second line chart, and HBar, a distribution's small bar
package chart
