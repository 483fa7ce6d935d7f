package replay

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/http1"
)

// entry is one parsed log line. Its byte slices point into the line or the
// parser's scratch space and are valid until the next line is parsed.
type entry struct {
	method  []byte
	target  []byte      // origin form: path and query, or "*"
	headers [][2][]byte // name, value; in log order
	body    []byte
	time    int64 // nanoseconds since the Unix epoch, when hasTime
	hasTime bool
	coarse  bool // the time has whole-second resolution
}

func (e *entry) reset() {
	*e = entry{headers: e.headers[:0]}
}

func (e *entry) addHeader(name, value []byte) {
	e.headers = append(e.headers, [2][]byte{name, value})
}

// Reasons a line is skipped. They are fixed values so that parsing a good
// line never allocates, and they read well after "line N: ".
var (
	errEmptyMethod   = errors.New("no request method")
	errBadMethod     = errors.New("request method is not a token")
	errNoTarget      = errors.New("request line has no path")
	errBadTarget     = errors.New("request path is not /path, * or an http(s) URL")
	errCtlInTarget   = errors.New("request path has spaces or control characters")
	errBadVersion    = errors.New("request line does not end in HTTP/x.y")
	errBadHeaderName = errors.New("header name is not a token")
	errBadHeaderVal  = errors.New("header value has control characters")
	errLineTooLong   = errors.New("line longer than 16 MiB")
)

// splitRequestLine splits "METHOD target HTTP/x.y" (the version may be
// missing, as in HTTP/0.9) and checks method and target.
func splitRequestLine(line []byte, e *entry) error {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 {
		if len(line) == 0 || line[0] == '-' && len(line) == 1 {
			return errEmptyMethod
		}
		return errNoTarget
	}
	e.method = line[:sp]
	rest := line[sp+1:]
	if sp := bytes.LastIndexByte(rest, ' '); sp >= 0 {
		version := rest[sp+1:]
		if !isHTTPVersion(version) {
			return errBadVersion
		}
		rest = rest[:sp]
	}
	if !http1.IsToken(e.method) {
		return errBadMethod
	}
	target, err := originForm(rest)
	if err != nil {
		return err
	}
	e.target = target
	return nil
}

func isHTTPVersion(v []byte) bool {
	return len(v) == 8 && string(v[:5]) == "HTTP/" && isDigit(v[5]) && v[6] == '.' && isDigit(v[7])
}

// originForm returns the request target to send: the path and query of
// an absolute URL, or target itself when it already is a path or "*".
func originForm(target []byte) ([]byte, error) {
	if len(target) == 0 {
		return nil, errNoTarget
	}
	switch {
	case target[0] == '/':
	case len(target) == 1 && target[0] == '*':
	case ascii.HasPrefixLower(target, "http://") || ascii.HasPrefixLower(target, "https://"):
		rest := target[bytes.IndexByte(target, ':')+3:]
		i := bytes.IndexAny(rest, "/?#")
		switch {
		case i < 0 || rest[i] == '#':
			target = []byte("/")
		case rest[i] == '?':
			// http://host?q: the path is empty; send "/?q". Rare enough to
			// allocate.
			target = append([]byte("/"), rest[i:]...)
		default:
			target = rest[i:]
		}
	default:
		return nil, errBadTarget
	}
	for _, c := range target {
		if c <= ' ' || c == 0x7f {
			return nil, errCtlInTarget
		}
	}
	return target, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// validHeader checks a header field from the log before it is sent.
func validHeader(name, value []byte) error {
	if !http1.IsToken(name) {
		return errBadHeaderName
	}
	// Eight bytes at a time: a word with no byte below 0x20 and none equal
	// to 0x7f is clean; one that may have either is checked bytewise.
	i := 0
	for ; i+8 <= len(value); i += 8 {
		w := binary.LittleEndian.Uint64(value[i:])
		if (w-lows*0x20)&^w&highs == 0 && hasZero(w^(lows*0x7f)) == 0 {
			continue
		}
		if !cleanValue(value[i : i+8]) {
			return errBadHeaderVal
		}
	}
	if !cleanValue(value[i:]) {
		return errBadHeaderVal
	}
	return nil
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// hasZero is non-zero when a byte of w is zero.
func hasZero(w uint64) uint64 { return (w - lows) &^ w & highs }

// cleanValue reports whether b has no control characters but tabs.
func cleanValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
