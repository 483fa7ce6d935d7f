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
// second of r.Timeline. A run without a timeline writes only the header.
func CSV(w io.Writer, r *result.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	row := make([]string, len(csvHeader))
	for _, s := range r.Timeline {
		row[0] = strconv.Itoa(s.Second)
		row[1] = strconv.FormatInt(s.Requests, 10)
		row[2] = strconv.FormatInt(s.Errors, 10)
		row[3] = strconv.FormatInt(s.BytesRead, 10)
		row[4] = strconv.FormatInt(s.P50us, 10)
		row[5] = strconv.FormatInt(s.P99us, 10)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
