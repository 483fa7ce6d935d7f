package http3

import "testing"

func BenchmarkFrameReader(b *testing.B) {
	section := []byte{0, 0, 0xd9, 0xf5} // :status 200, content-type text/plain
	stream := AppendData(AppendHeaders(nil, section), make([]byte, 1024))
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := FrameReader{}
		for p := stream; len(p) > 0; {
			// Pieces of 100 bytes: payloads are split across calls.
			_, n, _, err := r.Next(p[:min(len(p), 100)])
			if err != nil {
				b.Fatal(err)
			}
			p = p[n:]
		}
	}
}

var benchFields = []struct{ name, value string }{
	{":status", "200"}, {"content-type", "application/json"}, {"content-length", "1234"},
	{"date", "Sat, 28 Nov 2026 01:00:00 GMT"}, {"server", "gust"}, {"x-request-id", "0af7651916cd43dd8448eb211c80319c"},
}

func BenchmarkQPACKEncode(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendSectionPrefix(buf[:0])
		for _, f := range benchFields {
			buf = AppendField(buf, f.name, f.value)
		}
	}
}

func BenchmarkQPACKDecode(b *testing.B) {
	sec := AppendSectionPrefix(nil)
	for _, f := range benchFields {
		sec = AppendField(sec, f.name, f.value)
	}
	var d Decoder
	fs := make([]Field, 0, 16)
	b.ReportAllocs()
	b.SetBytes(int64(len(sec)))
	for b.Loop() {
		var err error
		if fs, err = d.Decode(fs[:0], sec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQPACKDecodeFunc(b *testing.B) {
	sec := AppendSectionPrefix(nil)
	for _, f := range benchFields {
		sec = AppendField(sec, f.name, f.value)
	}
	var d Decoder
	n := 0
	emit := func(name, value []byte) { n++ }
	b.ReportAllocs()
	for b.Loop() {
		if err := d.DecodeFunc(sec, emit); err != nil {
			b.Fatal(err)
		}
	}
}
