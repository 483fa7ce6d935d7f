// Package wspaths is gust serve's two WebSocket endpoints on gust/server,
// shared by gust serve and gustd: /ws echoes every message back as
// it came (text as text, binary as binary); /ws/broadcast sends every
// message to all connections on that path, the sender included. Other
// paths, and requests that do not ask to upgrade, go to the next handler.
//
// It sits under cmd/internal because it is the two commands' wiring, not
// a library: it builds on server, so it cannot be one of the internal
// packages server itself is built on, and Go's internal rule keeps it to
// the commands.
//
// # Files
//
//   - wspaths.go: /ws echo and /ws/broadcast, native and through the adapter; --ws-deflate
package wspaths
