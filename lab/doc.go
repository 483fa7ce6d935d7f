// Package lab is gust bench: scenarios and servers as data (embedded
// matrices under scenarios/, or --config), a runner that starts each
// server pinned to its own CPUs, drives it with a loader (gust in
// process, wrk, hey, ab, h2load; HTTP/3 by gust alone) and samples it (/proc, expvar) over the
// measured window only, and the reports of a matrix, drawn with
// report/chart and report/table. A failing cell is data: its reason is
// recorded and the matrix goes on.
//
// # Files
//
//   - applicable.go: which servers have a cell in which scenarios; the cells not applicable, said once
//   - attack.go: hostile traffic run beside a scenario's load (slowloris, idle, endless heads or bodies)
//   - capacity.go: CapacitySearch cells: the highest open-model rate held under an objective
//   - compare.go: gust bench compare: the change between two results.json
//   - compress.go: compression cells: the coding asked, each server's flags and codings
//   - cpus.go: CPU sets: the allowed CPUs, the half-and-half split, ChooseCPUs
//   - cpus_linux.go: pinning every thread of gust bench, the open-file limit
//   - cpus_other.go: the CPU stubs off Linux
//   - files.go: file cells: the file written per cell under {root}; nginx as a built-in server
//   - h2load.go: the h2load loader and its output parser
//   - h3.go: HTTP/3 cells: validation, the quic-go peer's flags, readiness over QUIC
//   - html.go: report.html: charts and tables from report/chart and report/table
//   - kernel.go: the kernel release for the report's header
//   - loader.go: Loader: gust in-process (load.Run), wrk, hey and ab
//   - loader_proto.go: which loader can run which mode's cells
//   - markdown.go: report.md
//   - peers.go: BuildPeers: the peers module built into the user cache
//   - profile.go: --profile: the server's CPU profile over the measured part
//   - proto.go: Scenario.Mode (http1, tls, h2, h2c, ...) and the flags each server gets for it
//   - results.go: results.json and results.csv
//   - runner.go: Runner: per cell a fresh pinned server, readiness, load, sampling, stop, --repeat median
//   - sample.go: /proc CPU ticks and memory, expvar goroutines and GC, sampled every 100 ms
//   - scenario.go: Scenario as data, the embedded matrices, --config parsing
//   - select.go: SelectServers: built-ins, --server, --target, narrowed by --servers
//   - server.go: Server: a command template or a running URL; the built-in servers
//   - slowloris.go: the slowloris attack from one goroutine, cut connections redialled
//   - terminal.go: the table printed as cells finish
//   - websocket.go: WebSocket cells (echo, hold, broadcast) on the in-process loader
package lab
