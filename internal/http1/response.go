package http1

import "bytes"

// DefaultMaxHead is the head size limit ParseResponseHead applies when it is
// given a maxHead of zero or less.
const DefaultMaxHead = 64 << 10

// ResponseHead is the parsed status line plus the headers that decide framing.
// Other header fields are validated but not kept.
type ResponseHead struct {
	Major, Minor  int   // HTTP version; Major is always 1
	StatusCode    int   // 100 to 999
	ContentLength int64 // -1 when absent
	Chunked       bool  // Transfer-Encoding whose final coding is chunked
	// Close reports that the connection closes after this response:
	// "Connection: close", HTTP/1.0 without "Connection: keep-alive", or
	// HTTP/1.0 with Transfer-Encoding (RFC 9112 section 6.1).
	Close   bool
	HeadLen int // bytes of the status line and header section including the blank line
	// EventStream reports a Content-Type of text/event-stream: the body
	// is a stream of Server-Sent Events.
	EventStream bool

	// transferEncoding records that a Transfer-Encoding field was present,
	// so that Body can tell a final coding other than chunked from none.
	transferEncoding bool
}

// connTokens collects the Connection options seen while parsing a head.
type connTokens struct {
	close, keepAlive bool
}

// ParseResponseHead parses the response head at the start of buf into h.
//
// It returns the head length (also stored in h.HeadLen); the body, if any,
// starts at buf[n:]. It returns ErrIncomplete if buf does not yet hold a
// full head and len(buf) < maxHead, ErrHeadTooLarge if no full head is found
// within the first maxHead bytes, or a parse error for which IsMalformed is
// true. A head of exactly maxHead bytes is accepted, so a caller whose read
// buffer holds maxHead bytes never waits for a byte it has no room for.
// A maxHead of zero or less means DefaultMaxHead.
//
// Lines may end in CRLF or, as RFC 9112 section 2.2 allows, a bare LF.
// A malformed head is refused as soon as the offending byte (for the status
// line: its line ending) is in buf, without waiting for the rest; parsing a
// prefix of buf therefore returns either ErrIncomplete or the same result as
// parsing buf.
//
// h is overwritten and is meaningful only when the error is nil. buf is not
// retained and no memory is allocated.
func ParseResponseHead(buf []byte, maxHead int, h *ResponseHead) (int, error) {
	if maxHead <= 0 {
		maxHead = DefaultMaxHead
	}
	b := buf
	if len(b) > maxHead {
		b = b[:maxHead]
	}
	*h = ResponseHead{ContentLength: -1}

	line, next, ok := nextLine(b, 0)
	if !ok {
		// Refuse a peer that is not speaking HTTP without waiting for
		// maxHead bytes of it.
		n := min(len(b), len("HTTP/"))
		if string(b[:n]) != "HTTP/"[:n] {
			return 0, ErrBadStatusLine
		}
		return 0, incomplete(len(buf), maxHead)
	}
	if err := h.parseStatusLine(line); err != nil {
		return 0, err
	}

	var conn connTokens
	for {
		name, value, n, end, err := nextField(b, next)
		if err == ErrIncomplete {
			return 0, incomplete(len(buf), maxHead)
		}
		if err != nil {
			return 0, err
		}
		next = n
		if end {
			break
		}
		if err := h.parseField(name, value, &conn); err != nil {
			return 0, err
		}
	}

	http10 := h.Minor == 0
	h.Close = conn.close || http10 && (!conn.keepAlive || h.transferEncoding)
	h.HeadLen = next
	return next, nil
}

// incomplete returns the error for a head that has not ended in the first
// min(n, maxHead) bytes of an n-byte buffer.
func incomplete(n, maxHead int) error {
	if n >= maxHead {
		return ErrHeadTooLarge
	}
	return ErrIncomplete
}

// nextLine returns the line of b starting at start without its line ending
// (LF or CRLF), and the offset after the ending; ok is false when b holds
// no LF after start.
func nextLine(b []byte, start int) (line []byte, next int, ok bool) {
	i := bytes.IndexByte(b[start:], '\n')
	if i < 0 {
		return nil, start, false
	}
	line = b[start : start+i]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, start + i + 1, true
}
