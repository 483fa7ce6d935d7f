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
	// critical holds, by type, the ID (plus one; 0 before it opens) of
	// the peer's control and QPACK streams: an idle connection's three
	// streams cost no map.
	critical [4]uint64
	others   map[uint64]*uniStream // streams whose type is still arriving, or is one to ignore
}

// uniStream is a unidirectional stream the peer opened: its type once
// read, and a type split across arrivals.
type uniStream struct {
	typ     StreamType
	known   bool
	pending [8]byte
	n       int
}

// criticalType returns the type of stream id if it is one of the peer's
// critical streams.
func (u *uniStreams) criticalType(id uint64) (StreamType, bool) {
	for t, v := range u.critical {
		if v == id+1 {
			return StreamType(t), true
		}
	}
	return 0, false
}

// keep holds s under id until its type is read or its end comes.
func (u *uniStreams) keep(id uint64, s *uniStream, fin bool) {
	if fin {
		delete(u.others, id)
		return
	}
	if u.others == nil {
		u.others = make(map[uint64]*uniStream)
	}
	u.others[id] = s
}

// receive consumes bytes that arrived on the peer's unidirectional stream
// id; ignore is true for a stream of an unknown type.
func (u *uniStreams) receive(id uint64, p []byte, fin bool) (ignore bool, err error) {
	typ, ok := u.criticalType(id)
	if !ok {
		s := u.others[id]
		if s == nil {
			s = new(uniStream)
		}
		if !s.known {
			k := copy(s.pending[s.n:], p)
			t, n := ParseStreamType(s.pending[:s.n+k])
			if n == 0 {
				s.n += k
				u.keep(id, s, fin)
				return false, nil
			}
			p = p[n-s.n:]
			s.typ, s.known = t, true
			if err := u.open(t, id); err != nil {
				return false, err
			}
		}
		if !s.typ.Known() {
			u.keep(id, s, fin)
			return true, nil
		}
		delete(u.others, id)
		typ = s.typ
	}
	switch typ {
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
	if fin {
		return false, connErr(ErrCodeClosedCriticalStream, "the peer closed a QPACK stream")
	}
	return false, nil
}

// open checks a new unidirectional stream of type t may be opened, and
// notes id as the peer's stream of a critical type.
func (u *uniStreams) open(t StreamType, id uint64) error {
	if t == StreamPush {
		if u.server {
			return connErr(ErrCodeStreamCreation, "a client opened a push stream")
		}
		return connErr(ErrCodeID, "push stream though no push was allowed")
	}
	if !t.Known() {
		return nil
	}
	if u.critical[t] != 0 {
		return connErr(ErrCodeStreamCreation, "a second stream of a type that must be unique")
	}
	u.critical[t] = id + 1
	return nil
}
