package fileserve

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseRanges(t *testing.T) {
	tests := []struct {
		name    string
		v       string
		size    int64
		want    []Range
		outcome RangeOutcome
	}{
		{"one closed range", "bytes=0-9", 100, []Range{{0, 10}}, RangeSatisfiable},
		{"an open range runs to the end", "bytes=90-", 100, []Range{{90, 10}}, RangeSatisfiable},
		{"a suffix range counts from the end", "bytes=-5", 100, []Range{{95, 5}}, RangeSatisfiable},
		{"a suffix past the start is the whole", "bytes=-500", 100, []Range{{0, 100}}, RangeSatisfiable},
		{"an end past the size is clipped", "bytes=50-500", 100, []Range{{50, 50}}, RangeSatisfiable},
		{"several ranges keep their order", "bytes=10-19, 0-4", 100, []Range{{10, 10}, {0, 5}}, RangeSatisfiable},
		{"blanks and empty elements are allowed", " bytes = 1 - 2 ,, -3", 100, []Range{{1, 2}, {97, 3}}, RangeSatisfiable},
		{"the unit is case-insensitive", "BYTES=0-0", 100, []Range{{0, 1}}, RangeSatisfiable},
		{"a range past the end is dropped", "bytes=200-300,0-0", 100, []Range{{0, 1}}, RangeSatisfiable},
		{"only ranges past the end are unsatisfiable", "bytes=100-", 100, nil, RangeUnsatisfiable},
		{"a zero suffix is unsatisfiable", "bytes=-0", 100, nil, RangeUnsatisfiable},
		{"an end before the start is unsatisfiable", "bytes=9-5", 100, nil, RangeUnsatisfiable},
		{"bad syntax is unsatisfiable", "bytes=abc", 100, nil, RangeUnsatisfiable},
		{"no dash is unsatisfiable", "bytes=5", 100, nil, RangeUnsatisfiable},
		{"a number too long is unsatisfiable", "bytes=99999999999999999999-", 100, nil, RangeUnsatisfiable},
		{"another unit is ignored", "items=0-1", 100, nil, RangeNone},
		{"a longer unit is not bytes", "bytesx=0-1", 100, nil, RangeNone},
		{"an empty representation ignores ranges", "bytes=0-1", 0, nil, RangeNone},
		{"ranges adding up past the size are ignored", "bytes=0-99,0-99", 100, nil, RangeNone},
		{"nothing but commas is ignored", "bytes=,,", 100, nil, RangeNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, outcome := ParseRanges([]byte(tt.v), tt.size, nil)
			if outcome != tt.outcome || !slices.Equal(got, tt.want) {
				t.Errorf("ParseRanges(%q, %d) = %v, %d; want %v, %d", tt.v, tt.size, got, outcome, tt.want, tt.outcome)
			}
		})
	}
}

func TestTooManyRangesAreIgnored(t *testing.T) {
	var v strings.Builder
	v.WriteString("bytes=")
	for i := range MaxRanges + 1 {
		fmt.Fprintf(&v, "%d-%d,", i, i)
	}
	if rs, outcome := ParseRanges([]byte(v.String()), 1000, nil); outcome != RangeNone || len(rs) != 0 {
		t.Errorf("%d ranges: %d ranges returned, outcome %d; want none", MaxRanges+1, len(rs), outcome)
	}
}

func TestContentRange(t *testing.T) {
	if got := string(AppendContentRange(nil, Range{Start: 10, Length: 5}, 100)); got != "bytes 10-14/100" {
		t.Errorf("AppendContentRange = %q", got)
	}
	if got := string(AppendUnsatisfied(nil, 100)); got != "bytes */100" {
		t.Errorf("AppendUnsatisfied = %q", got)
	}
}

// TestByterangesLayout: the part heads and the closing boundary make the
// body mime/multipart writes, which its reader parses back.
func TestByterangesLayout(t *testing.T) {
	boundary, ok := strings.CutPrefix(ByterangesType, "multipart/byteranges; boundary=")
	if !ok || len(boundary) != 30 {
		t.Fatalf("ByterangesType %q", ByterangesType)
	}
	file := []byte("0123456789abcdefghij")
	var body []byte
	for i, r := range []Range{{0, 3}, {10, 4}} {
		body = AppendPartHead(body, i, r, "text/plain", int64(len(file)))
		body = append(body, file[r.Start:r.Start+r.Length]...)
	}
	body = AppendClosingBoundary(body)
	want := "--" + boundary + "\r\nContent-Range: bytes 0-2/20\r\nContent-Type: text/plain\r\n\r\n012" +
		"\r\n--" + boundary + "\r\nContent-Range: bytes 10-13/20\r\nContent-Type: text/plain\r\n\r\nabcd" +
		"\r\n--" + boundary + "--\r\n"
	if !bytes.Equal(body, []byte(want)) {
		t.Errorf("body\n%q\nwant\n%q", body, want)
	}
	if got := string(AppendPartHead(nil, 0, Range{0, 1}, "", 20)); strings.Contains(got, "Content-Type") {
		t.Errorf("a part without a type has a Content-Type: %q", got)
	}
}

// FuzzParseRanges: whatever the Range field, the ranges returned lie in
// the representation, are not empty, add up to at most its size and are
// at most MaxRanges; nothing panics.
func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"bytes=0-0", "bytes=-5", "bytes=5-", "bytes=0-1,3-4", "bytes= 1 - 2 ,, -3",
		"bytes=9-5", "bytes=abc", "items=0-1", "BYTES=0-1", "bytes=-0", "bytes=99999999999999999999-"} {
		f.Add(s, int64(100))
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, v string, size int64) {
		if size < 0 {
			size = -size
		}
		size %= 1 << 40
		rs, outcome := ParseRanges([]byte(v), size, nil)
		if outcome != RangeSatisfiable {
			if len(rs) != 0 {
				t.Fatalf("%q: %v returned with outcome %d", v, rs, outcome)
			}
			return
		}
		if len(rs) == 0 || len(rs) > MaxRanges {
			t.Fatalf("%q: %d ranges", v, len(rs))
		}
		var sum int64
		for _, r := range rs {
			if r.Start < 0 || r.Length <= 0 || r.Start+r.Length > size {
				t.Fatalf("%q size %d: range %+v", v, size, r)
			}
			sum += r.Length
		}
		if sum > size {
			t.Fatalf("%q size %d: ranges add up to %d", v, size, sum)
		}
	})
}
