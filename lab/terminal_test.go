package lab

import (
	"bytes"
	"testing"
)

func TestWriteTableRow(t *testing.T) {
	r := fakeResults()
	for _, tc := range []struct {
		name string
		cell Cell
		want string
	}{
		{"a measured cell", r.Cells[0], "fasthttp       keepalive-200         200     101402      1.50      9.80    10.50     24.0        210       0\n"},
		{"a target: unknowns are dashes", r.Cells[2], "nginx          keepalive-200         200      50000      1.50      9.80        -        -          -       0\n"},
		{"a delayed cell shows its ideal", r.Cells[5], "fasthttp       delay2s-2            2000   999/1000      1.50      9.80    10.50     24.0        210       0\n"},
		{"a failed cell shows its error", r.Cells[4], "gust-native    keepalive-2000       2000  error: " + r.Cells[4].Error + "\n"},
		{"a hold cell shows what it held, not a rate", Cell{Server: "gust-native", Scenario: "ws-hold-200", Connections: 200, Hold: true, Held: 200,
			Latency: Latencies{P50: -1, P99: -1, P999: -1}, CPUUsPerReq: -1, RSSPeakBytes: 24 << 20, GoroutinesMax: 9},
			"gust-native    ws-hold-200           200   held 200         -         -        -     24.0          9       0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteTableRow(&b, tc.cell)
			if b.String() != tc.want {
				t.Errorf("got  %q\nwant %q", b.String(), tc.want)
			}
		})
	}
}
