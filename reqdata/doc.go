// Package reqdata reads the request data of gust load: targets files
// (--targets: one request a line, or JSON lines) into
// load.RequestTemplates, and CSV files (--data-csv) into load.Data for
// their {{column}} placeholders. It reads and checks; load.DataSource
// compiles and sends.
package reqdata
