package reqdata

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gust-http/gust/load"
)

// ReadCSV reads a CSV file (RFC 4180: commas, "quoted" fields, "" for a
// quote inside one) whose first row names the columns, each once, for
// {{column}} placeholders. Every row must have as many fields as the
// header; a bad row is an error naming its line (file:line).
func ReadCSV(r io.Reader, name string) (*load.Data, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	switch {
	case err == io.EOF:
		return nil, fmt.Errorf("%s: empty: the first line must name the columns", name)
	case err != nil:
		return nil, csvError(name, err)
	}
	d := &load.Data{Name: name}
	for i, col := range header {
		col = strings.TrimSpace(strings.TrimPrefix(col, "\ufeff"))
		switch {
		case col == "":
			return nil, fmt.Errorf("%s:1: column %d has no name", name, i+1)
		case strings.ContainsAny(col, "{}"):
			return nil, fmt.Errorf("%s:1: column %q: names cannot hold { or }", name, col)
		case slices.Contains(d.Columns, col):
			return nil, fmt.Errorf("%s:1: column %q named twice", name, col)
		}
		d.Columns = append(d.Columns, col)
	}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		d.Rows = append(d.Rows, row)
		d.Lines = append(d.Lines, line)
	}
	if len(d.Rows) == 0 {
		return nil, fmt.Errorf("%s: no rows below the header", name)
	}
	return d, nil
}

// csvError writes encoding/csv's error as file:line: reason.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("read %s: %w", name, err)
}
