package result

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram settings shared by every histogram of a run: microseconds from
// 1 us to 1 hour with 3 significant digits.
const (
	HistMin     = 1
	HistMax     = int64(time.Hour / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty latency histogram in microseconds with the
// settings every gust histogram uses, so that any two can be merged exactly.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMin, HistMax, HistSigFigs)
}
