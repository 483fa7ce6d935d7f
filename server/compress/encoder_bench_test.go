package compress

import (
	"runtime"
	"testing"

	"github.com/gust-http/gust/internal/hello"
)

// BenchmarkEncoderMemory measures what one pooled encoder of each coding
// holds once it has compressed a 100 KiB body: the heap in use over N
// such encoders kept alive, divided by N (reported as heap-bytes/encoder).
func BenchmarkEncoderMemory(b *testing.B) {
	body := hello.JSON(100 << 10)
	for _, c := range DefaultOrder {
		b.Run(c.String(), func(b *testing.B) {
			z := New(Config{})
			const n = 16
			for range b.N {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				kept := make([]*encoder, n)
				for i := range kept {
					kept[i] = z.pools[c].New().(*encoder)
					kept[i].w.Reset(discard{})
					kept[i].w.Write(body)
					kept[i].w.Close()
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/n, "heap-bytes/encoder")
				runtime.KeepAlive(kept)
			}
		})
	}
}

// BenchmarkLevels compresses a 100 KiB JSON document with one reused
// encoder per coding and level, reporting the compressed size
// (out-bytes): the trade the defaults (gzip 5, brotli 4, zstd 3) make.
func BenchmarkLevels(b *testing.B) {
	body := hello.JSON(100 << 10)
	levels := []struct {
		coding Coding
		cfg    Config
		name   string
	}{
		{Gzip, Config{GzipLevel: 1}, "gzip-1"}, {Gzip, Config{GzipLevel: 5}, "gzip-5"},
		{Gzip, Config{GzipLevel: 6}, "gzip-6"}, {Gzip, Config{GzipLevel: 9}, "gzip-9"},
		{Brotli, Config{BrotliLevel: 1}, "br-1"}, {Brotli, Config{BrotliLevel: 4}, "br-4"},
		{Brotli, Config{BrotliLevel: 5}, "br-5"}, {Brotli, Config{BrotliLevel: 6}, "br-6"},
		{Zstd, Config{ZstdLevel: 1}, "zstd-1"}, {Zstd, Config{ZstdLevel: 3}, "zstd-3"},
		{Zstd, Config{ZstdLevel: 7}, "zstd-7"},
	}
	for _, l := range levels {
		b.Run(l.name, func(b *testing.B) {
			e := New(l.cfg).pools[l.coding].New().(*encoder)
			var s sink
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for range b.N {
				s.b = s.b[:0]
				e.w.Reset(&s)
				e.w.Write(body)
				e.w.Close()
			}
			b.ReportMetric(float64(len(s.b)), "out-bytes")
		})
	}
}
