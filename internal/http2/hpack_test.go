package http2

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// encodeBlock encodes fields with x/net's encoder, the peer's side.
func encodeBlock(enc *hpack.Encoder, buf *bytes.Buffer, fields ...string) []byte {
	buf.Reset()
	for i := 0; i < len(fields); i += 2 {
		enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(buf.Bytes())
}

func TestHeaderDecoderLimits(t *testing.T) {
	big := strings.Repeat("x", 3000)
	tests := []struct {
		name     string
		limits   HeaderLimits
		fields   []string
		split    int // fragment size; 0 means one fragment
		wantErr  error
		wantCode ErrCode
		wantN    int // fields emitted
	}{
		{name: "a block within the limits is emitted whole", fields: []string{":status", "200", "a", "b"}, wantN: 2},
		{name: "a block past the header list size is decoded but reported too large", limits: HeaderLimits{MaxHeaderListSize: 100},
			fields: []string{"a", strings.Repeat("y", 50), "b", strings.Repeat("z", 50)}, wantErr: ErrHeaderListTooLarge, wantN: 1},
		{name: "a field longer than the list size is refused before it is copied", limits: HeaderLimits{MaxHeaderListSize: 1000, MaxBlockBytes: 10000},
			fields: []string{"a", big}, wantCode: ErrCodeEnhanceYourCalm},
		{name: "a block past MaxBlockBytes ends the connection", limits: HeaderLimits{MaxBlockBytes: 10},
			fields: []string{"abc", "defghijklmn"}, wantCode: ErrCodeEnhanceYourCalm},
		{name: "a block in more CONTINUATIONs than allowed ends the connection", limits: HeaderLimits{MaxContinuations: 2},
			fields: []string{"abc", "defghijklmn"}, split: 2, wantCode: ErrCodeEnhanceYourCalm},
		{name: "a field split across fragments is decoded", fields: []string{"abc", "defghijklmn"}, split: 3, wantN: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			block := encodeBlock(hpack.NewEncoder(&buf), &buf, tt.fields...)
			n := 0
			d := NewHeaderDecoder(tt.limits, func(name, value string) { n++ })
			d.Begin()
			var err error
			frags := [][]byte{block}
			if tt.split > 0 {
				frags = nil
				for b := block; len(b) > 0; {
					k := min(tt.split, len(b))
					frags = append(frags, b[:k])
					b = b[k:]
				}
			}
			for i, f := range frags {
				if err = d.WriteFragment(f, i > 0); err != nil {
					break
				}
			}
			if err == nil {
				err = d.End()
			}
			switch {
			case tt.wantCode != 0:
				if CodeOf(err) != tt.wantCode {
					t.Fatalf("err = %v, want %v", err, tt.wantCode)
				}
			case !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantCode == 0 && n != tt.wantN {
				t.Fatalf("%d fields emitted, want %d", n, tt.wantN)
			}
		})
	}
}

// TestHeaderDecoderBomb sends one 4000-byte field into the dynamic table,
// then a block of 20000 one-byte references to it (80 MB decoded): the block
// is refused, and only the fields within the limit are emitted.
func TestHeaderDecoderBomb(t *testing.T) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	first := encodeBlock(enc, &buf, "bomb", strings.Repeat("b", 4000))
	ref := encodeBlock(enc, &buf, "bomb", strings.Repeat("b", 4000))
	if len(ref) != 1 {
		t.Fatalf("reference is %d bytes, want 1", len(ref))
	}
	bomb := bytes.Repeat(ref, 20000)
	emitted := 0
	d := NewHeaderDecoder(HeaderLimits{MaxBlockBytes: 1 << 20}, func(name, value string) { emitted += len(name) + len(value) + 32 })
	d.Begin()
	if err := d.WriteFragment(first, false); err != nil || d.End() != nil {
		t.Fatalf("first block: %v", err)
	}
	emitted = 0
	d.Begin()
	if err := d.WriteFragment(bomb, false); err != nil {
		t.Fatalf("bomb: %v", err)
	}
	if err := d.End(); !errors.Is(err, ErrHeaderListTooLarge) {
		t.Fatalf("End = %v, want ErrHeaderListTooLarge", err)
	}
	if emitted > 64<<10 {
		t.Fatalf("%d bytes emitted past the 64 KiB limit", emitted)
	}
	// The decoder is still in sync: a normal block decodes.
	emitted = 0
	d.Begin()
	if err := d.WriteFragment(encodeBlock(enc, &buf, ":status", "204"), false); err != nil || d.End() != nil || emitted == 0 {
		t.Fatalf("block after the bomb: %v, %d emitted", err, emitted)
	}
}

func TestHeaderEncoderReusesItsBuffer(t *testing.T) {
	e := NewHeaderEncoder()
	encode := func() []byte {
		e.Begin()
		e.Field(":method", "GET")
		e.Field(":path", "/index.html")
		e.Field(":authority", "example.com")
		return e.Block()
	}
	encode()
	if allocs := testing.AllocsPerRun(100, func() { encode() }); allocs != 0 {
		t.Fatalf("%v allocations per block, want 0", allocs)
	}
	// A decoder that followed every block from the first decodes the
	// reused blocks to the same fields.
	e = NewHeaderEncoder()
	var got []string
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) { got = append(got, f.Name+"="+f.Value) })
	for i := 0; i < 3; i++ {
		got = got[:0]
		if _, err := dec.Write(encode()); err != nil {
			t.Fatal(err)
		}
		if want := ":method=GET :path=/index.html :authority=example.com"; strings.Join(got, " ") != want {
			t.Fatalf("block %d decoded to %q, want %q", i, got, want)
		}
	}
}

// TestHeaderDecoderTableSizeBindsAfterAck: a table below 4096 binds once the
// peer acknowledged it; before, the peer may still use the default 4096.
func TestHeaderDecoderTableSizeBindsAfterAck(t *testing.T) {
	d := NewHeaderDecoder(HeaderLimits{MaxTableSize: 256}, func(name, value string) {})
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	d.Begin()
	if err := d.WriteFragment(encodeBlock(enc, &buf, "x-long", strings.Repeat("v", 1000)), false); err != nil || d.End() != nil {
		t.Fatalf("a 1000-byte entry before the ACK: %v", err)
	}
	d.SettingsAcked()
	d.Begin()
	// A dynamic table size update to 4096 now exceeds the acknowledged 256.
	if err := d.WriteFragment([]byte{0x3f, 0xe1, 0x1f, 0x82}, false); CodeOf(err) != ErrCodeCompression {
		t.Fatalf("a table size update past the limit after the ACK: %v, want COMPRESSION_ERROR", err)
	}
}
