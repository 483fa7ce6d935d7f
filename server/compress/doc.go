// Package compress compresses dynamic responses with zstd, brotli or
// gzip, for gust/server's native handlers (Compressor.Handler) and for
// any net/http handler, on gust's adapter or on net/http itself
// (Compressor.Middleware). It is a package of its own so that
// gust/server does not depend on brotli.
//
// # Negotiation
//
// The coding is the one the request's Accept-Encoding gives the highest
// q-value among those offered (Config.Order), ties going to the server's
// order: zstd, then br, then gzip (see Negotiate; "*" and q=0 count,
// unknown codings do not). Identity is sent when nothing offered is
// acceptable, or when the client prefers "identity" outright.
//
// # What is compressed
//
// A response is left as it is when its status is 1xx, 204, 206 or 304;
// when the handler set Content-Encoding itself; when its Content-Type is
// compressed already (images but SVG, audio, video, WOFF fonts, zip,
// gzip, zstd, brotli and other archives, PDF); or when its whole body is
// under Config.MinSize (1 KiB by default). Every other response gets
// "Vary: Accept-Encoding", compressed or not, so that caches keep the
// codings apart. A compressed response gets Content-Encoding, loses
// Content-Length (the server frames it anew) and has a strong ETag made
// weak (W/"..."), since its bytes are not the identity ones. HEAD gets
// GET's headers. A WebSocket upgrade passes through.
//
// Compression leaks the size of what is compressed: a response that
// reflects a client's input beside a secret (a CSRF token, say) is open
// to BREACH-style guessing, and is better served without this wrapper.
//
// # Streaming
//
// A handler that flushes (Ctx.Flush, http.Flusher) streams: at each
// Flush the encoder is flushed too (gzip's sync flush, brotli's and
// zstd's block ends), so what was written reaches the client before the
// handler goes on. A response that flushes is compressed whatever its
// size, since its size is not known. The middleware holds the first
// MinSize bytes of a body to decide, then writes through the encoder.
//
// # Encoders and their memory
//
// Encoders are kept in a sync.Pool per coding (klauspost/compress for
// gzip and zstd, andybalholm/brotli for brotli), reset for each response:
// the native path allocates nothing per response in steady state
// (TestNativeZeroAllocs), and the middleware adds nothing to what gust's
// adapter allocates (BenchmarkMiddleware's gust-adapter rows against
// gust-adapter-without). The pools, like every sync.Pool, drop idle
// encoders over two garbage collections. What one pooled encoder holds
// once it has compressed a 100 KiB body, with the default levels
// (BenchmarkEncoderMemory, heap in use over 16 kept encoders, Go 1.26,
// amd64):
//
//	gzip level 5                         about 1.0 MiB
//	brotli quality 4, window 2^18        about 2.1 MiB (window 2^22, brotli's default: about 9.6 MiB)
//	zstd level 3, window 512 KiB         about 1.6 MiB
//
// so a server compressing on N goroutines at once holds about N times
// that. The defaults are chosen for speed: gzip 5 (level 6 saves about 3%
// more on BenchmarkLevels' JSON, level 9 about 17% for many times
// the CPU), brotli 4 (quality 5 and up cost far more), zstd 3 (its
// default; zstd gives the least CPU for a ratio like gzip's).
//
// # Files
//
//   - bytes.go: a string viewed as bytes without copying
//   - config.go: Config (order, levels, windows, MinSize) and Compressor, its pools
//   - encoder.go: the pooled gzip, zstd and brotli encoders behind one interface
//   - middleware.go: Compressor.Middleware, the http.ResponseWriter that holds MinSize bytes to decide
//   - native.go: Compressor.Handler: the per-request FlushHook, the decision, Vary and ETag
//   - negotiate.go: Coding, Negotiate: Accept-Encoding's q-values and the server's order on ties
//   - types.go: which Content-Types are compressed already
package compress
