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
package replay
