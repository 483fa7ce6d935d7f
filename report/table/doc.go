// Package table writes the rows of the tables in gust's reports, as
// Markdown (gust bench's report.md and its comparisons) or as HTML (the
// pages of report.HTML and gust bench's report.html), so that every report
// escapes and lays out a cell the same way.
//
// # Files
//
//   - table.go: MarkdownHead, MarkdownRow and HTMLRow with Cell: every report's table rows
package table
