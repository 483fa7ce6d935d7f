// Package metrics holds the load generator's live metrics, and nothing
// else: it serves a running gust load's measurements to Prometheus (gust
// load --metrics-addr). An Exporter takes load.Live once a second
// (load.Config.Live) and a Server exposes it on /metrics, in Prometheus's
// text format, OpenMetrics, or protobuf with a native latency histogram,
// as the scraper asks. gust/server's own counters are not here: they are
// server.Stats, published as expvar.
//
// # Files
//
//   - exporter.go: Exporter, a prometheus.Collector: Update takes load.Live, Collect sends gust_load_*
//   - flow.go: a flow run's series: gust_load_step_* by step (and check), gust_load_flow_* totals
//   - histogram.go: the HdrHistogram mapped onto classic and native buckets
//   - server.go: Listen serves /metrics; Close lingers, then shuts down
package metrics
