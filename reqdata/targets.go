package reqdata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gust-http/gust/load"
)

// Format is a targets file's format.
type Format int

// The formats: Auto decides from the first line that is neither blank nor
// a comment ('{' is JSON).
const (
	Auto  Format = iota
	Lines        // one request a line, header fields on the lines below it
	JSON         // one JSON object a line
)

// ParseFormat reads --targets-format.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "lines", "text":
		return Lines, nil
	case "json", "jsonl":
		return JSON, nil
	}
	return Auto, fmt.Errorf("unknown targets format %q: use auto, lines or json", s)
}

// Options says how to read a targets file.
type Options struct {
	Name   string // the file's name, for messages and for @FILE bodies
	Format Format
	// Origin is the run's server, scheme://host[:port]: absolute URLs
	// must be on it.
	Origin string
	// ReadFile reads an @FILE body, its path relative to Name's folder;
	// nil refuses @FILE.
	ReadFile func(path string) ([]byte, error)
}

// MaxLine bounds a targets file's lines.
const MaxLine = 1 << 20

// ParseTargets reads a targets file. The lines format:
//
//	# a comment; blank lines are skipped
//	METHOD URL [weight=N] [BODY]
//	Name: value
//
// URL is a path (/a?b=1) or an absolute URL on the run's server; BODY is
// @FILE, read from FILE, or else the rest of the line as it is. Each
// "Name: value" line adds a header field to the request above it. In the
// JSON format each line is an object (see parseJSONTarget). Any bad line
// is an error naming it (file:line).
func ParseTargets(r io.Reader, opts Options) ([]load.RequestTemplate, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), MaxLine)
	format := opts.Format
	var reqs []load.RequestTemplate
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimRight(sc.Bytes(), "\r")
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if format == Auto {
			format = Lines
			if trimmed[0] == '{' {
				format = JSON
			}
		}
		where := fmt.Sprintf("%s:%d", opts.Name, n)
		var err error
		if format == JSON {
			var t load.RequestTemplate
			if t, err = parseJSONTarget(trimmed, &opts); err == nil {
				t.Where = where
				reqs = append(reqs, t)
			}
		} else {
			reqs, err = parseLine(string(line), reqs, &opts, where)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", opts.Name, n+1, MaxLine)
		}
		return nil, fmt.Errorf("read %s: %w", opts.Name, err)
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%s: no requests", opts.Name)
	}
	return reqs, nil
}

// parseLine reads one line of the lines format: a request, or a header
// field of the last one.
func parseLine(line string, reqs []load.RequestTemplate, opts *Options, where string) ([]load.RequestTemplate, error) {
	line = strings.TrimLeft(line, " \t")
	colon, space := strings.IndexByte(line, ':'), strings.IndexAny(line, " \t")
	if colon >= 0 && (space < 0 || colon < space) {
		if len(reqs) == 0 {
			return nil, errors.New("a header field before any request: write METHOD URL first")
		}
		name, value := line[:colon], strings.Trim(line[colon+1:], " \t")
		t := &reqs[len(reqs)-1]
		t.Header = append(t.Header, [2]string{name, value})
		return reqs, nil
	}
	method, rest := cutField(line)
	url, rest := cutField(rest)
	if url == "" {
		return nil, fmt.Errorf("%q is not METHOD URL (or a Name: value header field)", line)
	}
	t := load.RequestTemplate{Method: method, Where: where}
	if strings.HasPrefix(rest, "weight=") {
		var w string
		w, rest = cutField(rest)
		n, err := strconv.Atoi(w[len("weight="):])
		if err != nil || n < 1 || n > load.MaxTotalWeight {
			return nil, fmt.Errorf("bad %s: want a whole number from 1 to %d", w, load.MaxTotalWeight)
		}
		t.Weight = n
	}
	target, err := resolve(url, opts.Origin)
	if err != nil {
		return nil, err
	}
	t.Target = target
	t.Name = method + " " + target
	if strings.HasPrefix(rest, "@") {
		body, err := readBody(opts, strings.TrimRight(rest[1:], " \t"))
		if err != nil {
			return nil, err
		}
		t.Body = body
	} else {
		t.Body = rest
	}
	return append(reqs, t), nil
}

// cutField returns s's first whitespace-separated field and the rest,
// its leading whitespace removed.
func cutField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// readBody reads an @FILE body, relative to the targets file's folder.
func readBody(opts *Options, path string) (string, error) {
	if opts.ReadFile == nil || path == "" {
		return "", fmt.Errorf("@%s: bodies from files are not available here", path)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(opts.Name), path)
	}
	b, err := opts.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("body @%s: %w", path, err)
	}
	return string(b), nil
}
