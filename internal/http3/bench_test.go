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
