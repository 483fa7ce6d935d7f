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
package result
