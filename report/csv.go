package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/gust-http/gust/result"
)

// csvHeader names CSV's columns; the names match Second's JSON keys.
var csvHeader = []string{"second", "requests", "errors", "bytes_read", "p50_us", "p99_us"}

// CSV writes the per-second timeline: the header
// "second,requests,errors,bytes_read,p50_us,p99_us", then one row per
// second of r.Timeline. A run in stages adds a last column, target_rate,
// the requests the curve intended in each second. A run without a timeline
// writes only the header.
func CSV(w io.Writer, r *result.Result) error {
	cw := csv.NewWriter(w)
	header := csvHeader
	if r.Stages != "" {
		header = append(header[:len(header):len(header)], "target_rate")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	row := make([]string, len(header))
	for _, s := range r.Timeline {
		row[0] = strconv.Itoa(s.Second)
		row[1] = strconv.FormatInt(s.Requests, 10)
		row[2] = strconv.FormatInt(s.Errors, 10)
		row[3] = strconv.FormatInt(s.BytesRead, 10)
		row[4] = strconv.FormatInt(s.P50us, 10)
		row[5] = strconv.FormatInt(s.P99us, 10)
		if len(row) > 6 {
			row[6] = strconv.FormatFloat(round(s.TargetRate, 3), 'f', -1, 64)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
