package http3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestStaticTableEntries(t *testing.T) {
	if len(staticTable) != 99 {
		t.Fatalf("%d entries", len(staticTable))
	}
	for _, c := range []struct {
		i           int
		name, value string
	}{
		{0, ":authority", ""}, {1, ":path", "/"}, {17, ":method", "GET"}, {25, ":status", "200"},
		{29, "accept", "*/*"}, {63, ":status", "100"},
		{85, "content-security-policy", "script-src 'none'; object-src 'none'; base-uri 'none'"},
		{98, "x-frame-options", "sameorigin"},
	} {
		if e := staticTable[c.i]; e.name != c.name || e.value != c.value {
			t.Errorf("index %d: %q %q", c.i, e.name, e.value)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fieldsString(fs []Field) string {
	var sb strings.Builder
	for _, f := range fs {
		sb.WriteString(string(f.Name) + ": " + string(f.Value) + "\n")
	}
	return sb.String()
}

func TestDecodeRFCExamples(t *testing.T) {
	// RFC 9204 Appendix B.1: a literal with a static name reference.
	var d Decoder
	fs, err := d.Decode(nil, mustHex(t, "0000 510b 2f69 6e64 6578 2e68 746d 6c"))
	if err != nil || fieldsString(fs) != ":path: /index.html\n" {
		t.Fatalf("%q %v", fieldsString(fs), err)
	}
	// Indexed static lines (B.2 and B.4 reference static index 1 so).
	fs, err = d.Decode(fs[:0], mustHex(t, "0000 c1 d1 d9"))
	if err != nil || fieldsString(fs) != ":path: /\n:method: GET\n:status: 200\n" {
		t.Fatalf("%q %v", fieldsString(fs), err)
	}
}

func TestEncodeExactBytes(t *testing.T) {
	for _, c := range []struct {
		name, value, hex string
	}{
		{":status", "200", "d9"},
		{":method", "GET", "d1"},
		{":path", "/index.html", "51" + hex.EncodeToString(appendString(nil, 0, 7, "/index.html"))},
		// A literal name: 001 N=0 H, the name's length with a 3-bit prefix.
		{"x", "y", "2178" + "0179"},
		// '~' has a 13-bit Huffman code, so this name stays raw.
		{"~~~~~~~~~~", "", "27" + "03" + strings.Repeat("7e", 10) + "00"},
	} {
		got := hex.EncodeToString(AppendField(nil, c.name, c.value))
		if got != c.hex {
			t.Errorf("%s: %s: got %s, want %s", c.name, c.value, got, c.hex)
		}
	}
	if got := AppendFieldNeverIndexed(nil, ":status", "200"); !bytes.Equal(got, []byte{0x7f, 0x09, 0x82, 0x10, 0x01}) {
		t.Errorf("never-indexed :status: % x", got)
	}
	if got := AppendFieldNeverIndexed(nil, "x", "y"); got[0] != 0x31 {
		t.Errorf("never-indexed literal name: % x", got)
	}
}

func TestQPACKRoundTrip(t *testing.T) {
	fields := []struct{ name, value string }{
		{":method", "GET"}, {":scheme", "https"}, {":authority", "example.com"},
		{":path", "/a/b?c=d"}, {"user-agent", "gust/1"}, {"accept", "*/*"},
		{"x-custom-header", strings.Repeat("v", 300)}, {"cookie", "a=b; c=d"},
		{"empty", ""}, {"content-type", "text/html; charset=utf-8"},
		{"bin", "\x00\xff\x7f"}, {strings.Repeat("n", 40), "long name"},
	}
	sec := AppendSectionPrefix(nil)
	for i, f := range fields {
		if i%3 == 2 {
			sec = AppendFieldNeverIndexed(sec, f.name, f.value)
		} else {
			sec = AppendFieldBytes(sec, []byte(f.name), []byte(f.value))
		}
	}
	var d Decoder
	got, err := d.Decode(nil, sec)
	if err != nil || len(got) != len(fields) {
		t.Fatalf("%d fields, %v", len(got), err)
	}
	for i, f := range fields {
		if string(got[i].Name) != f.name || string(got[i].Value) != f.value {
			t.Errorf("field %d: %q %q", i, got[i].Name, got[i].Value)
		}
	}
	var n int
	if err := d.DecodeFunc(sec, func(name, value []byte) { n++ }); err != nil || n != len(fields) {
		t.Errorf("DecodeFunc: %d fields, %v", n, err)
	}
}

func TestDecodeRefusals(t *testing.T) {
	huge := bytes.Repeat([]byte{0xc0}, 1000) // :authority "" costs 42 bytes decoded, 1 encoded
	for _, c := range []struct {
		name    string
		section string
		limit   uint64
		err     error
	}{
		{"a Required Insert Count other than 0", "0100", 0, errDynamicRef},
		{"a negative Base", "0080", 0, errNegBase},
		{"an indexed dynamic line", "000080", 0, errDynamicRef},
		{"a dynamic name reference", "00004001 61", 0, errDynamicRef},
		{"a post-Base index", "000010", 0, errDynamicRef},
		{"a post-Base name reference", "00000001 61", 0, errDynamicRef},
		{"a static index past the table", "0000ff24", 0, errStaticIdx},
		{"a static name index past the table", "00005f54 00", 0, errStaticIdx},
		{"an empty section", "", 0, errTruncated},
		{"a prefix without its Base", "00", 0, errTruncated},
		{"a value cut short", "0000 5103 2f", 0, errTruncated},
		{"a name cut short", "0000 23 61", 0, errTruncated},
		{"a name reference without its value", "0000 51", 0, errTruncated},
		{"a literal name without its value", "0000 2161", 0, errTruncated},
		{"an integer past 62 bits", "0000 ff ffffffffffffffffff01", 0, errBadInt},
		{"an integer without an end", "0000 ff ff", 0, errTruncated},
		{"an invalid Huffman string", "0000 5181 ff", 0, errHuffman},
		{"a Huffman string with a bad EOS pad", "0000 5182 ffff", 0, errHuffman},
		{"a section over the limit", "0000" + hex.EncodeToString(huge), 1000, ErrFieldSectionTooLarge},
		{"a raw value over the limit", "0000 517f 40" + strings.Repeat("61", 191), 100, ErrFieldSectionTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Decoder{MaxFieldSectionSize: c.limit}
			_, err := d.Decode(nil, mustHex(t, c.section))
			if !errors.Is(err, c.err) {
				t.Fatalf("got %v, want %v", err, c.err)
			}
			if c.err != ErrFieldSectionTooLarge && CodeOf(err) != ErrCodeQPACKDecompressionFailed {
				t.Errorf("code %v", CodeOf(err))
			}
		})
	}
}

func TestDecodeSizeCountsOverhead(t *testing.T) {
	// RFC 9114 section 4.2.2: name + value + 32 per field. ":status: 200"
	// is 7+3+32 = 42 bytes: exactly at a limit of 42, over it at 41.
	sec := mustHex(t, "0000d9")
	if _, err := (&Decoder{MaxFieldSectionSize: 42}).Decode(nil, sec); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := (&Decoder{MaxFieldSectionSize: 41}).Decode(nil, sec); err != ErrFieldSectionTooLarge {
		t.Errorf("over the limit: %v", err)
	}
}

func TestDecodedFieldsDoNotAliasSpareCapacity(t *testing.T) {
	sec := AppendField(AppendField(AppendSectionPrefix(nil), "x", "y"), ":status", "200")
	var d Decoder
	fs, err := d.Decode(nil, sec)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if cap(f.Name) != len(f.Name) || cap(f.Value) != len(f.Value) {
			t.Errorf("%q: an append would write past the field", f.Name)
		}
	}
}

func TestQPACKSteadyStateAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool allocate")
	}
	sec := AppendSectionPrefix(nil)
	sec = AppendField(sec, ":authority", "example.com") // Huffman-coded: uses the buffer
	sec = AppendField(sec, "x-id", "abc")
	var d Decoder
	fs := make([]Field, 0, 4)
	buf := make([]byte, 0, 128)
	d.Decode(fs, sec)
	if n := testing.AllocsPerRun(100, func() {
		fs, _ = d.Decode(fs[:0], sec)
		buf = AppendField(AppendSectionPrefix(buf[:0]), "x-id", "abc")
	}); n != 0 {
		t.Errorf("%v allocations per section", n)
	}
}

// The Huffman memo must give back exactly what decoding would, whether a
// value was seen before, was pushed out by newer ones, or differs from a
// remembered one by a byte.
func TestDecoderHuffmanMemoMatchesDecoding(t *testing.T) {
	values := []string{
		"text/plain; charset=utf-8", "Sat, 28 Nov 2026 06:10:00 GMT", "Sat, 28 Nov 2026 06:10:01 GMT",
		"gust", "application/json", "no-cache", "max-age=60", "gzip", "keep-alive-ish", "nginx/1.22.1",
		"caddy", "a-much-longer-value-that-is-still-short-enough-to-be-remembered-x",
	}
	var d Decoder
	for round := range 40 {
		want := values[(round*7)%len(values)]
		sec := AppendSectionPrefix(nil)
		sec = AppendField(sec, ":status", "200")
		sec = AppendField(sec, "x-value", want)
		fields, err := d.Decode(nil, sec)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(fields) != 2 || string(fields[1].Value) != want {
			t.Fatalf("round %d: decoded %q, want x-value %q", round, fields, want)
		}
	}
}
