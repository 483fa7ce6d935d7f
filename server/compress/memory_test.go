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
