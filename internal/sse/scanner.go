package sse

// Scanner counts the events of a text/event-stream fed to it in pieces of
// any size. An event is dispatched, as a browser's EventSource dispatches
// it, at the blank line that ends a block holding at least one data
// field: a block of comments (lines starting with ':'), or of other
// fields alone (event:, id:, retry:), dispatches nothing. Lines end in
// CRLF, LF or a lone CR. The zero value is ready for a new stream.
type Scanner struct {
	lineLen int  // bytes of the current line so far (capped)
	name    int  // how much of the line so far matches "data"; -1: it does not
	data    bool // the block so far holds a data field
	cr      bool // the last byte was a CR: an LF next ends nothing more
}

const dataField = "data"

// Reset makes s ready for a new stream.
func (s *Scanner) Reset() { *s = Scanner{} }

// Feed scans p, the next bytes of the stream, and returns how many events
// ended in it.
func (s *Scanner) Feed(p []byte) (events int) {
	for _, b := range p {
		if b == '\n' && s.cr {
			s.cr = false // the LF of a CRLF: the line already ended
			continue
		}
		s.cr = b == '\r'
		if b == '\n' || b == '\r' {
			if s.lineLen == 0 {
				// A blank line ends the block.
				if s.data {
					events++
				}
				s.data = false
			} else if s.name == len(dataField) {
				s.data = true // "data" alone, or "data:" and a value
			}
			s.lineLen, s.name = 0, 0
			continue
		}
		if s.lineLen < len(dataField)+1 {
			s.advanceName(b)
		}
		if s.lineLen < 1<<30 {
			s.lineLen++
		}
	}
	return events
}

// advanceName follows the field name at the start of a line, for the
// line's first five bytes: "data" then ':' (or the line's end) makes it a
// data field.
func (s *Scanner) advanceName(b byte) {
	switch {
	case s.name < 0:
	case s.name < len(dataField):
		if b == dataField[s.name] {
			s.name++
		} else {
			s.name = -1
		}
	case b != ':': // "data" followed by more of a name: another field
		s.name = -1
	}
}
