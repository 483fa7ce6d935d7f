// Package hello is what every server gust measures answers, written once:
// gust serve on either engine and the peers of the peers module answer
// Text on every path and method with the same headers (gust serve refuses
// CONNECT with a 405 of its own), and expose the same debug endpoints
// (DebugHandler) for gust bench's samplers.
//
// # Files
//
//   - debug.go: the debug mux (expvar, pprof) every measured server serves
//   - hello.go: Text, the answer every measured server gives, with a body size and a delay
//   - json.go: JSON(n), the same n bytes of realistic JSON every run
package hello
