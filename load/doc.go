// Package load is gust's load generator, a library first. A Config names
// the target (http://, https:// over TLS through crypto/tls, ws:// or
// wss://), the protocol (HTTP/1.1 with pipelining, HTTP/2 with streams,
// either as ALPN picks, or WebSocket messages over HTTP/1.1 or HTTP/2) and
// the schedule (closed, constant rate, stages, recorded times, held
// WebSockets, user journeys); Run drives event loops over non-blocking sockets and
// returns a result.Result with HdrHistogram latencies.
//
// The pipeline, one noun a file: a target's requests (Config's one
// request, request data picked in each loop, or a Source's batches) are
// staged as request heads (internal/head); a schedule decides when each
// goes out; each loop owns its connections and runs their round trips
// (roundtrip.go); a connection's session (protocol.go) encodes each head
// in its protocol and parses the answers into the sink, which records
// latencies, statuses and errors. Nothing is allocated per request once
// the buffers have grown.
//
// # Files
//
//   - config.go: Config, defaults, validation, the target resolved
//   - conn.go: a connection's state: socket, transport, session, write buffer, timers
//   - data_cursor.go: dataCursor, one reader of a DataSource: next request and row, into reused buffers
//   - data_picker.go: request data picked in each loop as it sends, no feeder
//   - data_source.go: DataSource (--targets, --data-csv): templates compiled, rows sharded
//   - endpoints.go: per-endpoint counters and histograms per loop, merged into Result.Endpoints
//   - flow_live.go: FlowLive (Live.Flow): per-step counts, latency and checks for a watcher
//   - flow_run.go: FlowRun (Config.Flow): user journeys checked, shared between shards, their result
//   - flow_users.go: a loop's virtual users apart from connections: flowUser, the heap of users thinking
//   - grpc.go: a gRPC call's status from grpc-status (or its HTTP status), counted by code per loop
//   - grpcframe.go: grpcFrames, a gRPC body's length-prefixed messages counted as DATA arrives
//   - grpcstream.go: GRPCStream: client-streaming and bidirectional calls' messages, per-message latency
//   - grpctimers.go: the loop's heap of timers bringing streaming calls' next messages
//   - h2choose.go: a connection's protocol from ALPN: alpnOffer, useProtocol, an auto run's counts
//   - h2session.go: HTTP/2's session on internal/http2.ClientConn: streams, resets, GOAWAY, expire
//   - h2stats.go: HTTP/2's counters: RST_STREAM and GOAWAY by code, retries
//   - h3link.go: quicLink, an HTTP/3 connection's transport: datagrams read and sent in batches
//   - h3loop.go: HTTP/3 on the loop: UDP connects, handshakes fed on the loop, the engines' timer heap
//   - h3probe.go: probeQUIC, one QUIC handshake before the run so that a bad target fails fast
//   - h3session.go: HTTP/3's session on internal/quic and internal/http3: streams, GOAWAY, expire
//   - h3stats.go: quicStats, a loop's QUIC handshakes, RTTs, losses and closes for result.QUIC
//   - http1.go: HTTP/1.1's session: the ring of in-flight exchanges, the in-place response parser
//   - idle.go: idleQueue, connections waiting for a request to come due, on a ring
//   - lifecycle.go: a connection's life: connect, handshake, ready, fail, reopen
//   - live.go: Live (Config.Live): each second's counts summed by the collector for a watcher
//   - loop.go: one event loop: poller wait, timers, timeline seconds, the timeout scan
//   - protocol.go: the protocol seam: session, exchange, newSession
//   - ramp.go: connects paced for ConnectRate and RampUp
//   - request.go: RequestHead and the request a session encodes, Config's serialized once
//   - retry.go: requests a GOAWAY sent back unprocessed, resent first on the next socket
//   - ring.go: ring, a fixed-size first-in first-out queue: exchanges in flight, idle connections
//   - roundtrip.go: one round trip top to bottom: handle, read, feed, refill, send, write, flush
//   - run.go: Run: the start-up probe, the loops started and stopped, their stats merged
//   - rxstamp.go: rxClock, reads timed by the kernel's receive stamps (Config.RXStamps)
//   - schedule.go: the schedule seam: what to send and when, asked at each turning point
//   - schedule_closed.go: the closed model: the next request sent as a response arrives
//   - schedule_flow.go: user journeys: users take idle connections or queue for one; steps, thinks, iterations
//   - schedule_hold.go: --ws-hold: no messages, a ping per connection on the timer heap
//   - schedule_rate.go: a constant rate: each connection's share, staggered, charged from its time
//   - schedule_recorded.go: a Source's requests at their recorded times, scaled or flat
//   - schedule_stages.go: --stages: requests at the rate curve's times, the pool grown when late
//   - shard.go: Config.applyShard: connections, rate and budget divided with result.Shard
//   - sink.go: sink and the loop's delivery: latency, status and errors recorded once
//   - sock_linux.go: socket set-up: source address, non-blocking connect, connect errors
//   - sock_other.go: the socket stubs off Linux
//   - source.go: Source and SourceRequest, and the feeder that packs them into batches
//   - sources.go: the local addresses (SourceAddrs) a loop's connections bind to in turn
//   - stages.go: Stage, ParseStages, the rate curve and its inverse in closed form
//   - stats.go: per-loop counters and histograms, added to the Result by mergeInto
//   - stream.go: responses read as streams: Server-Sent Events or pieces timed as they arrive
//   - template.go: Template, {{column}} placeholders compiled into segments
//   - timeline.go: the collector: the loops' seconds merged, target rates stamped, progress
//   - timers.go: a min-heap of connections waiting for a time
//   - tls.go: TLSConfig, the run's tls.Config and session cache, HandshakeError
//   - tls_loop.go: the handshake between connected and ready, finished on the loop
//   - tls_stats.go: per-loop handshake counts and histogram, failures classified
//   - transport_linux.go: the plain transport each connection reuses
//   - transport_other.go: the plain transport's stub off Linux
//   - ws.go: WebSocket's session: handshake, messages masked, echoes completing, closes counted
//   - ws_config.go: WebSocketConfig, its checks, and the run's handshake and message made once
//   - ws_h2.go: WebSocket over HTTP/2 (RFC 8441): one extended CONNECT stream per connection
//   - ws_stats.go: per-loop WebSocket counters, added to result.WebSocket
//   - ws_upgrade.go: the 101 read in place, a refusal counted as ErrUpgrade by status
package load
