package http3

// uniStreams reads the unidirectional streams the peer opened, for either
// role: the stream type first (RFC 9114 section 6.2), then the control
// stream to its reader, the QPACK streams checked for a dynamic table of
// capacity 0, and streams of unknown types discarded.
type uniStreams struct {
	// server is true when this endpoint is the server: the peer may not
	// open push streams at all (H3_STREAM_CREATION_ERROR), and its
	// control stream carries a client's frames.
	server  bool
	control PeerControl
	byID    map[uint64]*uniStream
	seen    [4]bool // the peer's critical streams opened, by type
}

// uniStream is a unidirectional stream the peer opened: its type once
// read, and a type split across arrivals.
type uniStream struct {
	typ     StreamType
	known   bool
	pending [8]byte
	n       int
}

// receive consumes bytes that arrived on the peer's unidirectional stream
// id; ignore is true for a stream of an unknown type.
func (u *uniStreams) receive(id uint64, p []byte, fin bool) (ignore bool, err error) {
	if u.byID == nil {
		u.byID = make(map[uint64]*uniStream)
	}
	s := u.byID[id]
	if s == nil {
		s = new(uniStream)
		u.byID[id] = s
	}
	if !s.known {
		k := copy(s.pending[s.n:], p)
		t, n := ParseStreamType(s.pending[:s.n+k])
		if n == 0 {
			s.n += k
			if fin {
				delete(u.byID, id)
			}
			return false, nil
		}
		p = p[n-s.n:]
		s.typ, s.known = t, true
		if err := u.open(t); err != nil {
			return false, err
		}
	}
	switch s.typ {
	case StreamControl:
		u.control.server = u.server
		return false, u.control.Receive(p, fin)
	case StreamQPACKEncoder:
		for _, b := range p {
			// Set Dynamic Table Capacity 0: 001 and a 5-bit prefix of 0.
			if b != 0x20 {
				return false, connErr(ErrCodeQPACKEncoderStream, "encoder stream instruction for a dynamic table of capacity 0")
			}
		}
	}
	if !s.typ.Known() {
		if fin {
			delete(u.byID, id)
		}
		return true, nil
	}
	if fin {
		return false, connErr(ErrCodeClosedCriticalStream, "the peer closed a QPACK stream")
	}
	return false, nil
}

// open checks a new unidirectional stream of type t may be opened.
func (u *uniStreams) open(t StreamType) error {
	if t == StreamPush {
		if u.server {
			return connErr(ErrCodeStreamCreation, "a client opened a push stream")
		}
		return connErr(ErrCodeID, "push stream though no push was allowed")
	}
	if !t.Known() {
		return nil
	}
	if u.seen[t] {
		return connErr(ErrCodeStreamCreation, "a second stream of a type that must be unique")
	}
	u.seen[t] = true
	return nil
}
