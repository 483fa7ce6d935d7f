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
package report
