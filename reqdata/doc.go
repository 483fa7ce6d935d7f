// Package reqdata reads the request data of gust load: targets files
// (--targets: one request a line, or JSON lines) into
// load.RequestTemplates, and CSV files (--data-csv) into load.Data for
// their {{column}} placeholders. It reads and checks; load.DataSource
// compiles and sends.
//
// # Files
//
//   - csv.go: ReadCSV: RFC 4180 rows under a header naming the columns
//   - targets.go: ParseTargets, Format, Options: the lines format, errors as file:line
//   - targets_json.go: JSON lines targets, unknown keys refused
//   - url.go: SplitURL: origin and raw target, absolute URLs held to the run's server
package reqdata
