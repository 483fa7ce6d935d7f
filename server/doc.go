// Package server is gust's event-loop HTTP server engine. A connection
// speaks one protocol at a time behind one per-connection seam the loop
// drives: HTTP/1.1 from its first byte; HTTP/2 after the client preface
// (Config.H2C) or when ALPN picks "h2" (Config.HTTP2.OverTLS); WebSocket
// after an upgrade a handler accepts (Ctx.UpgradeWebSocket), over HTTP/1.1
// or an HTTP/2 extended CONNECT stream. Its transport is plain TCP or TLS
// (Config.TLS, ListenAndServeTLS). Files are served by FileServer and
// Ctx.SendFile, on internal/fileserve's decisions: sendfile(2) on plain
// TCP.
//
// A few event loops (one per CPU by default), each with its own epoll
// instance, own every connection; an idle one holds no buffer and no
// goroutine. Config.Mode dispatches requests: Inline runs handlers on the
// loop; Pooled on worker goroutines; Auto (the default) starts a handler
// on its loop and moves it off to a goroutine of its own when it outlives
// Config.HandlerBudget, learning which routes wait and sending those to
// workers up front. HTTP/1.1 requests, HTTP/2 streams and WebSocket
// messages all ask the loop's dispatcher where to run.
//
// Handlers use the native API, a func(*Ctx) that sees the request as byte
// views and allocates nothing, or any net/http Handler through
// HTTPHandler. Without epoll, Serve falls back to a goroutine per
// connection on package net, HTTP/1.1 only.
//
// # Files
//
//   - adapter.go: HTTPHandler, net/http on top of Ctx: Request, ResponseWriter, Flusher, Hijacker
//   - adapter_fields_linux.go: a net/http handler's header and trailers as HTTP/2 or HTTP/3 fields
//   - adapter_file.go: the adapter's ReadFrom, an *os.File copied becoming the Ctx's file body
//   - adapter_h2hold_linux.go: a net/http handler's HTTP/2 flushes held on its loop until its last part
//   - auto.go: Auto mode's route table (path hash, decaying probes); moveViews for a handed-over request
//   - auto_linux.go: Auto on the loops: the seat, moving a handler off, the loop's new goroutine, the watchdog
//   - config.go: Config and its zero values, Mode (Auto, Pooled, Inline), Acceptor, HandlerBudget
//   - conn_linux.go: a connection's state, fields grouped by owner; ownership states, deadline, cancel
//   - connturn_linux.go: the loop's side of any connection: handle, readTurn, writeOut, flushOut
//   - ctx.go: Ctx, the native API: request views, response headers and body, Flush
//   - ctxhook.go: the response as a wrapper sees it: FlushHook, ResponseHeader, ResponseBody
//   - date.go: the Date header refreshed once a second, and its string for HTTP/2
//   - dispatch.go: dispatcher, where work runs for every protocol: runHere (Inline), pooled, Auto's seat
//   - drain_linux.go: Shutdown's steps: connections closed or told to close a share at a time over DrainSpread
//   - drain_other.go: the same on the portable engine: none chosen before the spread is over
//   - engine_linux.go: listeners (SO_REUSEPORT per loop, or one acceptor), starting and stopping loops
//   - engine_other.go: the portable fallback: a goroutine per connection on net, HTTP/1.1 only
//   - filebody.go: fileBody, a response body of bytes and file ranges; SendFileRange
//   - filesend_linux.go: a file body after its head: sendfile(2) on TCP, read and written over TLS
//   - fileserver.go: NewFileServer, FileServer, SendFile: GET and HEAD over a root on internal/fileserve
//   - h1bodystream_linux.go: HTTP/1.1 request bodies streamed as they arrive; the unread rest drained
//   - h1request.go: one HTTP/1.1 request top to bottom: step, serve, the parse and its state
//   - h1serve_linux.go: h1proto, HTTP/1.1 on the loop: the h2c switch, step, handOver, upgrades
//   - h1work_linux.go: the worker's side of an HTTP/1.1 connection: requests in order, waiting I/O
//   - h2adapter_linux.go: the net/http adapter on an HTTP/2 stream: streamed r.Body, Flusher, trailers
//   - h2auto_linux.go: HTTP/2 streams in Auto mode: the loop's stream queue run at the end of its turn
//   - h2config.go: HTTP2Config (over TLS, streams, windows, limits) and the engine's config from it
//   - h2conn_linux.go: h2conn, HTTP/2 as a connection's protocol, driving internal/http2.ServerConn
//   - h2file_linux.go: a file body on a stream, a 64 KiB piece at a time
//   - h2merge_linux.go: a Flush not waited for: its part joined to the one before it, up to asyncFlushLimit
//   - h2native_linux.go: native handlers on streams: Inline and Pooled runs, Ctx.Flush on a stream
//   - h2recv_linux.go: a stream's receiving side: HEADERS, body with credit, trailers, dispatch
//   - h2send_linux.go: a stream's sending side: posted parts applied, pump under the windows
//   - h2stream_linux.go: one stream: its request, its body buffer, what a worker posts (h2part)
//   - h2ws_linux.go: WebSocket over an HTTP/2 extended CONNECT stream (RFC 8441)
//   - h2wsauto_linux.go: WebSocket callbacks on HTTP/2 streams in Auto mode (wsOff, hand back)
//   - h3adapter_linux.go: the net/http adapter on an HTTP/3 stream: r.Proto HTTP/3.0, Flusher, trailers
//   - h3auto_linux.go: HTTP/3 streams in Auto mode: handlers on the loop, moved off as HTTP/2's are
//   - h3conn_linux.go: one QUIC connection: its routes, events, request and control streams, GOAWAY
//   - h3engine_linux.go: HTTP/3 enters the engine: a UDP socket per loop, the shared QUIC config and keys
//   - h3loop_linux.go: a loop's HTTP/3 side: recvmmsg/sendmmsg, routing, Retry, resets, the turn
//   - h3retry_linux.go: retryBudget, the Retries a loop sends a second under a flood of Initials
//   - h3stream_linux.go: one HTTP/3 request stream: read on the loop, answered on it or by a worker
//   - h3timers_linux.go: the loop's QUIC connections in a heap by their next deadline
//   - handler.go: Handler and HandlerFunc, and what a panic or runtime.Goexit costs a handler
//   - handover.go: ListenFiles, ListenerFiles, InheritedListeners: listeners inherited and handed on
//   - handover_cloexec_unix.go: close-on-exec for inherited descriptors off Linux
//   - handover_cloexec_windows.go: the same on Windows, where handles are not inherited unasked
//   - handover_linux.go: inherited sockets checked and spread over the loops, the loops' sockets duplicated
//   - handover_other.go: ListenFiles and its kin on the portable engine, one listener
//   - hijack_linux.go: Hijack, the socket detached into a net.Conn
//   - linger.go: why a close lingers (RFC 9112 section 9.6), and its bounds
//   - linger_linux.go: the lingering close: sockets read and dropped out of one budget per loop
//   - loop_linux.go: one event loop: accept, wait, the turn (finishTurn), later reads, wheel, shutdown
//   - pools_linux.go: the buffer pool and the workers' Ctx pool
//   - proto_linux.go: the per-connection protocol seam, and the loop's post queue
//   - server.go: Server: Listen, Serve, Shutdown, Close, Stats, expvar
//   - tls.go: HTTPS, portable part: ListenAndServeTLS, Ctx.TLS, the tls.Config Listen prepares
//   - tls_linux.go: TLS on the loops: handshakes off the loop, afterHandshake, quiet connections rest
//   - tls_other.go: TLS on the portable fallback (a tls.Listener), HTTP/1.1 only
//   - tlshijack_linux.go: Hijack over TLS, the transport made blocking on a duplicate socket
//   - wheel_linux.go: the timer wheel (512 slots of 100 ms) for connection deadlines
//   - workers.go: the worker pool: goroutines follow requests, a FIFO queue past MaxWorkers
//   - ws.go: WebSocket callbacks and limits, Ctx.UpgradeWebSocket and the 101 it makes
//   - ws_other.go: the portable fallback's WSConn and WSGroup stand-ins; upgrades answer 501
//   - wsauto_linux.go: WebSocket callbacks in Auto mode: OnMessage watched, moved off, given back
//   - wsconn_linux.go: WSConn, WebSocket as a connection's protocol on the loop
//   - wssend_linux.go: Send, Ping, Close from any goroutine through loop.post; WSGroup broadcasts
package server
