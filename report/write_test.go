package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteIsEachFormatsWriter checks that Write gives, byte for byte,
// what each format's own writer gives, and refuses a format it lacks.
func TestWriteIsEachFormatsWriter(t *testing.T) {
	r := replayResult()
	for _, tt := range []struct {
		format string
		direct func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return Text(b, r) }},
		{"json", func(b *bytes.Buffer) error { return JSON(b, r) }},
		{"csv", func(b *bytes.Buffer) error { return CSV(b, r) }},
		{"html", func(b *bytes.Buffer) error { return HTML(b, r) }},
	} {
		t.Run(tt.format+" is written by its own writer", func(t *testing.T) {
			var got, want bytes.Buffer
			if err := Write(&got, tt.format, r); err != nil {
				t.Fatal(err)
			}
			if err := tt.direct(&want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) || got.Len() == 0 {
				t.Errorf("Write(%q) differs from the format's writer", tt.format)
			}
		})
	}
	if len(Formats) != len(writers) {
		t.Errorf("Formats lists %d formats, Write knows %d", len(Formats), len(writers))
	}
	if err := Write(&bytes.Buffer{}, "xml", r); err == nil || !strings.Contains(err.Error(), "text, json, csv, html") {
		t.Errorf("Write of an unknown format: %v", err)
	}
}

func TestCheckFormat(t *testing.T) {
	for _, tt := range []struct {
		format  string
		formats []string
		want    string
	}{
		{"json", Formats, ""},
		{"xml", Formats, `-o must be text, json, csv or html, got "xml"`},
		{"html", []string{"text", "json", "csv"}, `-o must be text, json or csv, got "html"`},
	} {
		err := CheckFormat(tt.format, tt.formats)
		if got := errString(err); got != tt.want {
			t.Errorf("CheckFormat(%q, %v) = %q, want %q", tt.format, tt.formats, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
