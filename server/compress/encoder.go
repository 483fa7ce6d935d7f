package compress

import (
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// codec is what the three libraries' writers have in common.
type codec interface {
	io.WriteCloser
	Flush() error
	Reset(w io.Writer)
}

// encoder is a pooled writer of one coding at one level.
type encoder struct {
	coding Coding
	w      codec
}

func newGzip(level int) *encoder {
	w, err := gzip.NewWriterLevel(nil, level)
	if err != nil {
		w, _ = gzip.NewWriterLevel(nil, 5) // a level out of range: the default
	}
	return &encoder{coding: Gzip, w: w}
}

func newBrotli(quality, lgwin int) *encoder {
	return &encoder{coding: Brotli, w: brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: quality, LGWin: lgwin})}
}

// zstdWriter gives zstd's Reset the shape of the others'.
type zstdWriter struct{ *zstd.Encoder }

func (z zstdWriter) Reset(w io.Writer) { z.Encoder.Reset(w) }

func newZstd(level zstd.EncoderLevel, window int) *encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(window), zstd.WithLowerEncoderMem(true))
	if err != nil {
		// A window that is not a power of two from 1 KiB: the default.
		e, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(512<<10), zstd.WithLowerEncoderMem(true))
	}
	return &encoder{coding: Zstd, w: zstdWriter{e}}
}

// sink is an appending io.Writer over a reused slice.
type sink struct{ b []byte }

func (s *sink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// discard is where an idle pooled encoder points.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
