// Package report turns a result.Result into output people and tools read:
// a human summary (Text), a JSON document (JSON, shaped by Summary), a
// self-contained HTML page with charts (HTML), the per-second timeline as
// CSV (CSV) and an HdrHistogram interval log (HdrLog). It formats what the
// generator measured, and reads back only its own JSON (ReadResults, for
// gust merge to combine agents' results); it knows nothing about sockets,
// and every writer is deterministic for a given Result.
//
// Write writes any of Formats: gust load, gust replay and gust merge all
// report through it; a judged Result (--threshold) ends with its verdicts.
// WriteCapacity writes a capacity search (gust load --find-max) in the same
// formats. Latencies are in microseconds throughout, as in result.Result.
//
// # Files
//
//   - agents.go: the per-agent table of a merged result, for text and HTML
//   - capacity.go: WriteCapacity: a capacity search as text, JSON and CSV; CapacityStepLine
//   - capacity_html.go: a capacity search as an HTML page, latency against throughput
//   - csv.go: the per-second timeline as CSV
//   - distribution.go: the text summary's latency distribution bars
//   - endpoints.go: the per-endpoint table, for text and HTML
//   - flows.go: FlowsStats, the flows section (gust load --flow): iterations, their durations, checks by step
//   - format.go: number and duration formats
//   - grpc.go: GRPCStats: a gRPC run's calls by status name, messages and their timings, in text and JSON
//   - hdrlog.go: the HdrHistogram interval log
//   - html.go: the self-contained HTML page: tables and inline SVG charts
//   - html_flows.go: the HTML page's flows section, as the text report's
//   - http2.go: an HTTP/2 or auto run's protocol keys and summary lines
//   - json.go: the JSON document, every histogram encoded
//   - quic.go: QUICStats: an HTTP/3 run's QUIC connections in text, HTML and JSON, read back for merge
//   - read.go: ReadResults: JSON documents back into result.Results, for gust merge
//   - stream.go: StreamStats: streamed responses (sse, stream): first byte, first event, gaps, in text and JSON
//   - summary.go: Summary, the JSON document's shape (keys are only added)
//   - text.go: the human text summary
//   - threshold.go: a judged run's Thresholds section in text, HTML and JSON
//   - tls.go: TLSStats: a TLS run's facts in text, HTML and JSON, read back for merge
//   - websocket.go: WebSocketStats: a WebSocket run's facts in text, HTML and JSON
//   - write.go: Write(w, format, r) and Formats, the one format switch of load, replay and merge
package report
