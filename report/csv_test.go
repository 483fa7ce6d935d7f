package report

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCSV(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := f.result()
			var buf bytes.Buffer
			if err := CSV(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden(t, "csv_"+f.name+".golden", buf.Bytes())

			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(r.Timeline)+1 {
				t.Errorf("%d rows, want a header and %d seconds", len(rows), len(r.Timeline))
			}
			if got, want := rows[0], "second,requests,errors,bytes_read,p50_us,p99_us"; joinComma(got) != want {
				t.Errorf("header %q, want %q", joinComma(got), want)
			}
		})
	}
}

func TestCSVReportsWriteErrors(t *testing.T) {
	if err := CSV(failingWriter{}, closedRun()); err == nil {
		t.Error("CSV to a failing writer returned no error")
	}
}

func joinComma(cells []string) string {
	var b bytes.Buffer
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	return b.String()
}
