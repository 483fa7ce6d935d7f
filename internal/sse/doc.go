// Package sse reads Server-Sent Events streams (the HTML Living
// Standard's text/event-stream) as a load generator needs them: it finds
// where each event ends in bytes fed piece by piece, keeping a few bytes
// of state and copying nothing, so that a stream's events can be timed as
// they arrive. It does not keep the events' fields; a client that wants
// them parses them itself. It also writes the events of gust serve's test
// streams, and the record of their send times a load run is checked
// against.
//
// # Files
//
//   - scanner.go: Scanner: events counted as their blank lines arrive, any line ending, comments and fields
//   - source.go: the test streams' events (AppendTick) and the truth of their send times (Truth, Stats)
package sse
