// Command gust is an HTTP load generator (gust load, and gust replay for
// access logs), target server (gust serve), benchmark lab (gust bench) and
// the adder of load agents' results (gust merge), with gust flow from-har
// to start a flow file from a browser's recording.
//
// Each subcommand lives in a file of its own (load.go, replay.go, serve.go,
// bench.go, merge.go) with its flags and the wiring from them to the
// libraries; what several share is a small file of its own (drive.go,
// protoflags.go, tlsflags.go). Flags and wiring only: nothing here that
// a library could do, and flags are the only global state.
//
// # Files
//
//   - autobool.go: autoBool, a boolean flag whose default follows other flags (--rx-stamps)
//   - bench.go: gust bench and gust bench compare: flags into lab's servers, CPUs, runner and reports
//   - connectflags.go: --connect-rate and --source-addrs of gust load
//   - dataflags.go: --targets and --data-* of gust load: reqdata files into a load.DataSource
//   - drive.go: drive, a generator run as load and replay make it: progress, Ctrl-C, profiles, the log
//   - findmax.go: gust load --find-max: each step a load.Run through capacity.Search
//   - flowflags.go: --flow and its flags (--vus, --iterations, ...): a flow file into a load.FlowRun
//   - grpcflags.go: --grpc-call and how it is described (--grpc-proto or --grpc-reflect) into a load.Config
//   - har.go: gust flow from-har: a HAR's requests to one origin into a flow file's steps
//   - har_capture.go: from-har's captures: values a response gave that later requests send back
//   - load.go: gust load: flags into a load.Config, the progress line, the report
//   - main.go: the root command, one-line errors, the only place that picks an exit code
//   - merge.go: gust merge: agents' JSON read, added with result.Merge and reported
//   - metricsflags.go: --metrics-* of gust load: a metrics.Server fed by Config.Live
//   - protoflags.go: --proto http1.1|h2|auto and --http2 of load and replay
//   - replay.go: gust replay: an access log through replay into a load.Config with a Source
//   - serve.go: gust serve: flags, the hello handler, the net/http engine
//   - serve_check.go: gust serve's flags checked together, each refusal in one line
//   - serve_compress.go: gust serve's --compress (server/compress) and --body-json
//   - serve_events.go: gust serve's /events: Server-Sent Events, each flushed, on both engines
//   - serve_events_clock.go: /events' clocks: a connection's streams written together at each tick
//   - serve_events_truth.go: /events?stamp=1's send times kept, served at /events/truth
//   - serve_files.go: gust serve --root: gust/server's FileServer, or net/http's through either path
//   - serve_grpc.go: gust serve --grpc: gust.echo.Echo, every kind of gRPC call, on the net/http adapter
//   - serve_grpc_reflect.go: gust serve --grpc's server reflection (v1, v1alpha) describing gust.echo.Echo
//   - serve_gust.go: gust serve on gust/server: native or adapter handler, mode, loops, h2c and h2
//   - serve_reload.go: SIGHUP reads --tls-cert and --tls-key again; new connections get the renewed pair
//   - serve_tls.go: gust serve's HTTPS flags: certificates (or a self-signed one), versions, ticket key
//   - serve_upgrade.go: SIGUSR2 upgrades, --pid-file, listeners inherited (LISTEN_FDS)
//   - serve_workers.go: --workers N: the prefork parent re-executing itself, forwarding signals
//   - serve_workers_linux.go: a worker's process group, parent-death signal, SO_REUSEPORT for net/http
//   - serve_workers_other.go: --workers refused off Linux
//   - stageflags.go: --stages, --max-connections and --ramp-up of gust load, and their conflicts
//   - thresholdflags.go: --threshold and --fail-status: verdicts into the Result, exit status 99
//   - tlsflags.go: the TLS flags of load and replay into a load.TLSConfig
//   - wsflags.go: gust load's --ws-* flags into load.WebSocketConfig
package main
