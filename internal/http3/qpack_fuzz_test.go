package http3

import (
	"bytes"
	"testing"
)

// FuzzDecoder decodes arbitrary field sections: it must never panic, and a
// section that decodes must, encoded again by this package, decode to the
// same fields.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{0, 0, 0xd1, 0xd9})
	f.Add([]byte{0, 0, 0x51, 0x0b, '/', 'i', 'n', 'd', 'e', 'x', '.', 'h', 't', 'm', 'l'})
	f.Add(AppendField(AppendFieldNeverIndexed(AppendSectionPrefix(nil), "cookie", "secret"), "x-long-name", "value value"))
	f.Add([]byte{0, 0, 0x2f, 0x01, 0xff, 0x81, 0xff})
	f.Add([]byte{0x01, 0x80})
	f.Fuzz(func(t *testing.T, section []byte) {
		d := Decoder{MaxFieldSectionSize: 4096}
		fs, err := d.Decode(nil, section)
		if err != nil {
			return
		}
		var size uint64
		for _, fl := range fs {
			size += uint64(len(fl.Name)+len(fl.Value)) + 32
		}
		if size > 4096 {
			t.Fatalf("decoded %d bytes past the limit", size)
		}
		// Copy: the fields view the decoder's buffer, reused below.
		want := make([]Field, len(fs))
		for i, fl := range fs {
			want[i] = Field{Name: bytes.Clone(fl.Name), Value: bytes.Clone(fl.Value)}
		}
		again := AppendSectionPrefix(nil)
		for _, fl := range want {
			again = AppendFieldBytes(again, fl.Name, fl.Value)
		}
		got, err := d.Decode(nil, again)
		if err != nil {
			t.Fatalf("re-encoded section does not decode: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d fields, then %d", len(want), len(got))
		}
		for i := range got {
			if !bytes.Equal(got[i].Name, want[i].Name) || !bytes.Equal(got[i].Value, want[i].Value) {
				t.Fatalf("field %d: %q %q, then %q %q", i, want[i].Name, want[i].Value, got[i].Name, got[i].Value)
			}
		}
	})
}
