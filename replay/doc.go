// Package replay turns access logs into requests for the load engine:
// nginx/Apache combined and common log format and JSON lines, plain or
// gzip-compressed, read as a stream in constant memory. A Source parses
// each line, applies filters and edits, stages the request as the head
// gust sends (internal/head, built by internal/http1.BuildHead) with its
// body, and hands it to load.Run through load.Source with its recorded
// time and its endpoint (method and path template, such as
// "GET /users/:id"); each of load's sessions encodes the head in its own
// protocol, HTTP/1.1 or HTTP/2.
//
// Parsing, templating and staging a line allocate nothing once the
// buffers have grown: a log of any length replays without garbage.
//
// # Files
//
//   - clf.go: the common and combined log formats, escapes undone
//   - clock.go: recorded times: a second's lines spread over it, passes laid end to end
//   - entry.go: the parsed line, its checks, the reasons a line is skipped
//   - filter.go: Include, Exclude and Methods
//   - format.go: Format, ParseFormat, JSON lines told from CLF by the first line
//   - jsonl.go: JSON lines, scanned for exactly the shape read, allocating nothing
//   - lines.go: reading lines with buffers kept across passes; gzip by magic bytes
//   - source.go: Source, Options, Stats: opening, the line loop, bad lines
//   - stage.go: each request staged as the head gust sends, in a head.Store
//   - template.go: endpoint names (GET /users/:id) and their ids, capped
//   - timestamp.go: CLF, RFC 3339 and Unix-seconds times parsed by hand
package replay
