package chart

// Series is one named row of values of a chart: one a second in a
// Timeline, one a category in Bars. In Bars a NaN value is a gap.
type Series struct {
	Name   string
	Color  string // a CSS colour; unused for an Ideal series
	Values []float64
	// Ideal draws the series in Bars as a dashed outline: a reference,
	// not a measurement.
	Ideal bool
}

// Color returns the i-th colour of the palette that tells a chart's
// series apart; it repeats after ten.
func Color(i int) string { return palette[i%len(palette)] }

var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
