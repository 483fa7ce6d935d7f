package result

// Input describes what a replay read from its log: Result.Input, and the
// "input" object of a replay's JSON report.
type Input struct {
	// File is the log's name; "-" for standard input.
	File string `json:"file"`
	// Format is the log's format: combined, common or json.
	Format string `json:"format"`
	// Lines counts the non-blank lines of the log.
	Lines int64 `json:"lines"`
	// Requests counts the requests read from the log, over every pass.
	Requests int64 `json:"requests"`
	// Filtered counts the lines the filters left out.
	Filtered int64 `json:"filtered"`
	// Skipped counts the lines that could not be parsed.
	Skipped int64 `json:"skipped"`
	// SkippedLines are the first few lines that could not be parsed.
	SkippedLines []SkippedLine `json:"skipped_lines"`
	// Passes is how many times the log was read.
	Passes int `json:"passes"`
}

// SkippedLine is a log line that could not be parsed.
type SkippedLine struct {
	// Line is the line's number in the log, from 1.
	Line int64 `json:"line"`
	// Reason says why the line could not be parsed.
	Reason string `json:"reason"`
	// Text is the start of the line.
	Text string `json:"text"`
}
