package sse

import (
	"strings"
	"testing"
)

func TestScannerCountsEvents(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   int
	}{
		{"one event", "data: hello\n\n", 1},
		{"two lines of data are one event", "data: a\ndata: b\n\n", 1},
		{"two events", "data: a\n\ndata: b\n\n", 2},
		{"no blank line yet", "data: a\n", 0},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", 2},
		{"lone CR", "data: a\r\rdata: b\r\r", 2},
		{"mixed endings", "data: a\r\n\ndata: b\n\r\n", 2},
		{"data alone, no colon", "data\n\n", 1},
		{"data with no space", "data:x\n\n", 1},
		{"a comment is not an event", ": keep-alive\n\n", 0},
		{"event type alone is not an event", "event: ping\n\n", 0},
		{"id and retry alone", "id: 3\nretry: 1000\n\n", 0},
		{"a longer name", "database: x\n\n", 0},
		{"a shorter name", "dat: x\n\n", 0},
		{"upper case is another field", "DATA: x\n\n", 0},
		{"event with type and data", "event: tick\ndata: 1\nid: 7\n\n", 1},
		{"comment then data", ": hi\ndata: 1\n\n", 1},
		{"blank lines between", "\n\n\ndata: 1\n\n\n\n", 1},
		{"a long value", "data: " + strings.Repeat("x", 10000) + "\n\n", 1},
		{"data in the value is not a field", "id: data\n\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			if got := s.Feed([]byte(tc.stream)); got != tc.want {
				t.Errorf("whole: %d events, want %d", got, tc.want)
			}
			// Byte by byte, and split at every point: the same count.
			s.Reset()
			n := 0
			for i := range len(tc.stream) {
				n += s.Feed([]byte{tc.stream[i]})
			}
			if n != tc.want {
				t.Errorf("byte by byte: %d events, want %d", n, tc.want)
			}
			for cut := range len(tc.stream) {
				s.Reset()
				if n := s.Feed([]byte(tc.stream[:cut])) + s.Feed([]byte(tc.stream[cut:])); n != tc.want {
					t.Fatalf("split at %d: %d events, want %d", cut, n, tc.want)
				}
			}
		})
	}
}

func TestScannerFeedsAtTheBlankLine(t *testing.T) {
	var s Scanner
	if n := s.Feed([]byte("data: 1\n")); n != 0 {
		t.Fatalf("%d events before the blank line", n)
	}
	if n := s.Feed([]byte("\n")); n != 1 {
		t.Fatalf("%d events at the blank line, want 1", n)
	}
	// A CR ends the event at once; its LF, arriving later, adds nothing.
	if n := s.Feed([]byte("data: 2\r\n\r")); n != 1 {
		t.Fatalf("%d events at the CR, want 1", n)
	}
	if n := s.Feed([]byte("\n")); n != 0 {
		t.Fatalf("the CRLF's LF made %d more events", n)
	}
}

func TestScannerDoesNotAllocate(t *testing.T) {
	var s Scanner
	p := []byte("event: t\ndata: 12345\n\n: c\n\n")
	if n := testing.AllocsPerRun(100, func() { s.Feed(p) }); n != 0 {
		t.Errorf("%v allocations per Feed", n)
	}
}

// FuzzScanner checks that any split of any stream counts what the whole
// stream counts, and never more events than blank lines.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("data: a\r\n\r\n: c\n\nevent: x\ndata\n\n"), 5)
	f.Add([]byte("\r\r\n\n"), 1)
	f.Fuzz(func(t *testing.T, p []byte, cut int) {
		var whole Scanner
		want := whole.Feed(p)
		if cut < 0 {
			cut = -cut
		}
		if len(p) > 0 {
			cut %= len(p) + 1
		} else {
			cut = 0
		}
		var split Scanner
		if got := split.Feed(p[:cut]) + split.Feed(p[cut:]); got != want {
			t.Fatalf("split at %d: %d events, whole: %d", cut, got, want)
		}
		if want > len(p)/2 {
			t.Fatalf("%d events in %d bytes", want, len(p))
		}
	})
}
