// Package load is gust's HTTP/1.1 and HTTP/2 load generator, a library
// first: a Config describes the target (http:// or https://, TLS through
// crypto/tls, see TLSConfig), the protocol (HTTP/1.1 with pipelining,
// HTTP/2 with streams, or either as ALPN picks) and the schedule; Run
// drives event loops over non-blocking sockets and returns a
// result.Result with HdrHistogram latencies.
//
// The pipeline, one noun a file: a target's requests (Config's one
// request; request data picked by each loop, data_picker.go; or a
// Source's, such as gust replay's log, batched by a feeder: source.go) are
// staged as request heads (internal/head) with their
// bodies; a schedule (closed, constant rate, recorded times:
// schedule_*.go) decides when each goes out; each loop (loop.go) owns its
// connections (conn.go, lifecycle.go) and runs their round trips
// (roundtrip.go: read, feed, refill, send, write, flush); a connection's
// session (protocol.go; http1.go, h2session.go) encodes each head in its
// protocol and parses the responses, delivering them to the sink
// (sink.go), which records latencies, statuses and errors (stats.go,
// endpoints.go, timeline.go; live.go sums them once a second for
// Config.Live). Nothing is allocated per request once the buffers have
// grown.
package load
