// Package result is gust's results data model: what a load run or a replay
// measured (Result, with its timeline, status codes, errors and endpoint
// rows), how shares of one run are named (Shard) and how the results of
// agents that each ran a share are added into one (Merge, Agent); the
// conditions a run is judged by (Threshold, Verdict, StatusSet) and what a
// capacity search found (Capacity).
//
// It imports no engine: the generator (package load) fills a Result, and
// the reports (package report) and gust bench (package lab) read one,
// without either depending on the other's sockets or pollers.
//
// Latencies are in microseconds throughout, in HdrHistograms made by
// NewHistogram, so that any two can be added exactly.
//
// # Files
//
//   - agents.go: Agent, the agents table of a merged result, skew flagged
//   - capacity.go: Capacity and CapacityStep, what a capacity search found
//   - endpoint.go: Endpoint, a per-endpoint row (replay, --targets)
//   - errorkind.go: ErrorKind, the kinds of failure a run counts, and their report names
//   - failstatus.go: StatusSet (--fail-status), the statuses error_rate counts as failed
//   - flows.go: Flows, a user-journey run's iterations and checks by step, added exactly
//   - grpc.go: GRPC, a gRPC run's calls by status name, its messages and their timings, added exactly
//   - histogram.go: the one histogram setting every gust histogram shares, so any two add exactly
//   - http2.go: HTTP2: streams per connection, RST_STREAM and GOAWAY counts by code, retries
//   - input.go: Input, what a replay read from its log
//   - merge.go: Merge and Result.Add: agents' Results added into one, mismatches refused
//   - merge_endpoints.go: endpoints of data-driven runs merged by name
//   - protocol.go: the Protocol values (h2c, h2, auto), and Protocols, an auto run's connections
//   - quic.go: QUIC, an HTTP/3 run's QUIC connections: handshakes, RTT, packets lost, datagrams
//   - result.go: Result, what a run measured, and Second, one second of its timeline
//   - shard.go: Shard (I/N), shares that add up to the whole exactly
//   - stream.go: Stream, responses read as streams: first byte, first event, gaps, durations
//   - threshold.go: Threshold (--threshold), ParseThreshold, Judge into Verdicts
//   - threshold_flow.go: thresholds on a flow run: checks, a step's latency or error_rate, an iteration's duration
//   - threshold_grpc.go: thresholds on a gRPC run's messages: message, first_message, message_gap
//   - threshold_stream.go: thresholds on streamed responses: first_event, first_byte and gap latencies
//   - tls.go: TLS, a TLS run's handshakes: versions, suites, ALPN, resumption, errors
//   - websocket.go: WebSocket, a ws:// run's upgrades, messages, bytes, closes and pings
package result
