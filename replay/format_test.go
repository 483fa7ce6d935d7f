package replay

import "testing"

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"auto", Auto, false}, {"Combined", Combined, false}, {"common", Common, false}, {"JSON", JSON, false}, {"xml", 0, true},
	} {
		got, err := ParseFormat(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err == nil && got.String() != map[Format]string{Auto: "auto", Combined: "combined", Common: "common", JSON: "json"}[got] {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format
	}{
		{`{"path":"/"}`, JSON},
		{" \t{\"path\":\"/\"}", JSON},
		{`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`, Common},
		{"", Common},
	} {
		if got := detect([]byte(tc.line)); got != tc.want {
			t.Errorf("detect(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
