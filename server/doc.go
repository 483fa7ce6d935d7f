// Package server is gust's event-loop HTTP server engine: HTTP/1.1, and
// HTTP/2 (h2c with prior knowledge, Config.H2C, or over TLS when ALPN
// chooses "h2", Config.HTTP2.OverTLS), on plain TCP or TLS (Config.TLS,
// ListenAndServeTLS). Each connection speaks one protocol at a time, behind
// one seam the loop drives: HTTP/1.1 from its first byte, switched to
// HTTP/2 by the client preface or ALPN.
//
// A small number of event loops (one per CPU by default), each with its own
// epoll instance, own every connection. A connection costs a few hundred
// bytes while it is idle: read and write buffers are borrowed from pools only
// while a request or a response is in progress, and no goroutine waits on
// it. Goroutines follow requests that wait instead: in the default Auto
// mode a handler starts on its loop and, if it is still running after a
// short budget (it waits, or computes for long), is moved off to a
// goroutine of its own while the loop goes on; the loop learns which
// routes wait and sends them to workers up front. In Pooled mode every
// request runs on a worker goroutine taken from a pool whose size follows
// the number of requests being handled; in Inline mode handlers run on the
// loop itself, for handlers that never block.
//
// Handlers use either the native API, a func(*Ctx) that sees the request as
// byte views and allocates nothing, or any net/http Handler through
// HTTPHandler, so existing routers run unchanged.
//
// On platforms without epoll, Serve falls back to a goroutine per
// connection on the net package, with the same handlers and limits; it
// speaks HTTP/1.1 only (plain, or TLS through a tls.Listener).
package server
