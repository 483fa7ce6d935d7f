// Package chart draws the inline SVG charts of gust's HTML reports: the
// per-second timelines of report.HTML, the grouped bar charts of gust
// bench's report.html and the small bars of a latency distribution. One
// value axis (AxisMax and its grid) serves every chart, so that the two
// reports round and label their axes alike. Every function returns a
// self-contained <svg> element and is deterministic for its input.
package chart
