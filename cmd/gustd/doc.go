// Command gustd is gust/server alone: the hello answer ("Hello, Go!",
// text/plain) on every path and gust serve's two WebSocket endpoints (/ws
// echoes, /ws/broadcast sends to all on it), on gust/server's native API,
// and nothing else linked in. It is for runs where a process's own
// footprint counts: scripts/c1m.sh starts one per 18,000 connections (the
// open-file limit is 20,000 a process), and a process of the gust command
// (generator, reports, files, metrics) keeps about 14 MB resident where
// this one keeps about 8, as each peer of peers/ is a program of its own.
//
// Flags: -addr, -reuseport (share the port with other processes,
// SO_REUSEPORT), -loops, -mode (auto, pooled, inline), -read-header-timeout,
// -idle-timeout and -ws-ping, as gust serve's flags of those names; -http3
// serves HTTPS with a self-signed certificate made at start and HTTP/3 on
// the same port over UDP.
// SIGINT or SIGTERM shut it down within 5 s.
//
// # Files
//
//   - main.go: flags, the native hello handler and cmd/internal/wspaths on gust/server, signals
package main
