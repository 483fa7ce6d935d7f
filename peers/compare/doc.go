// Package compare runs gust/server, fasthttp and net/http through the same
// in-process workloads, side by side in one `go test -bench` run, and
// checks that routers written for net/http run unchanged on gust.
package compare
