package compress

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Config says which codings to offer, at which levels, and from which
// size on. Its zero value is the defaults, chosen for speed.
type Config struct {
	// Order lists the codings offered, the server's preference first on
	// equal q-values. Nil means DefaultOrder (zstd, br, gzip); a coding
	// left out is never used.
	Order []Coding
	// GzipLevel is gzip's level, 1 to 9; 0 means 5, which costs about
	// half of level 9's CPU for a ratio within a few percent of it.
	GzipLevel int
	// BrotliLevel is brotli's quality, 0 to 11; 0 means 4: brotli's
	// higher qualities cost many times the CPU of gzip. (Quality 0 itself
	// cannot be chosen; 1 is nearly as fast.)
	BrotliLevel int
	// BrotliWindow is brotli's window as a power of two (LGWin, 10 to
	// 24); 0 means 18 (256 KiB). Brotli's own default, 22, makes each
	// pooled encoder hold about 10 MiB instead of about 2 MiB.
	BrotliWindow int
	// ZstdLevel is zstd's level as the zstd tool numbers them (1 to 22,
	// mapped to klauspost's four speeds); 0 means 3, its default.
	ZstdLevel int
	// ZstdWindow is zstd's window in bytes, a power of two from 1 KiB;
	// 0 means 512 KiB. Each pooled encoder holds about twice its window,
	// and RFC 8878 limits a content coding's window to 8 MiB.
	ZstdWindow int
	// MinSize is the smallest body compressed; 0 means 1024 bytes. Below
	// about 1 KiB a body fits one packet either way, and the coding's
	// header and trailer (gzip: 18 bytes, more for short text than it
	// saves) plus the CPU make it a loss. A response that flushes before
	// the end is compressed whatever its size.
	MinSize int
}

// Compressor compresses responses as Config says, with encoders reused
// from pools. One Compressor may wrap any number of handlers, native and
// net/http alike, from any number of goroutines.
type Compressor struct {
	order   []Coding
	minSize int
	pools   [4]sync.Pool // per Coding: *encoder
	jobs    sync.Pool    // *job, the native wrapper's per-request state
	writers sync.Pool    // *responseWriter, the middleware's
}

// New returns a Compressor for cfg.
func New(cfg Config) *Compressor {
	z := &Compressor{order: cfg.Order, minSize: cfg.MinSize}
	if z.order == nil {
		z.order = DefaultOrder
	}
	if z.minSize <= 0 {
		z.minSize = 1024
	}
	gz := orDefault(cfg.GzipLevel, 5)
	br := orDefault(cfg.BrotliLevel, 4)
	bw := orDefault(cfg.BrotliWindow, 18)
	zl := zstd.EncoderLevelFromZstd(orDefault(cfg.ZstdLevel, 3))
	zw := orDefault(cfg.ZstdWindow, 512<<10)
	z.pools[Gzip].New = func() any { return newGzip(gz) }
	z.pools[Brotli].New = func() any { return newBrotli(br, bw) }
	z.pools[Zstd].New = func() any { return newZstd(zl, zw) }
	z.jobs.New = func() any { return &job{z: z} }
	z.writers.New = func() any { return &responseWriter{z: z} }
	return z
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// negotiate is Negotiate over the Compressor's order.
func (z *Compressor) negotiate(accept []byte) Coding { return Negotiate(accept, z.order) }

// getEncoder takes an encoder for c from its pool, writing to w.
func (z *Compressor) getEncoder(c Coding) *encoder {
	return z.pools[c].Get().(*encoder)
}

// putEncoder returns e to its pool.
func (z *Compressor) putEncoder(e *encoder) {
	e.w.Reset(discard{}) // drop the reference to the last destination
	z.pools[e.coding].Put(e)
}
