package quic

import (
	"bytes"
	"io"
)

// localConnID is a connection ID of this end, issued to the peer.
type localConnID struct {
	seq   uint64
	id    []byte
	token [StatelessResetTokenLen]byte
	owed  bool // its NEW_CONNECTION_ID is to be sent
}

// remoteConnID is a connection ID the peer issued, with its reset token.
type remoteConnID struct {
	seq      uint64
	id       []byte
	token    [StatelessResetTokenLen]byte
	hasToken bool
}

// connIDs are both ends' connection IDs (RFC 9000 section 5.1): this
// end's issued and not retired, the peer's on hand, which one is in use.
type connIDs struct {
	local        []localConnID
	nextLocalSeq uint64
	remote       []remoteConnID // remote[0] is in use
	retirePrior  uint64         // the peer's highest Retire Prior To
	retireOwed   []uint64       // RETIRE_CONNECTION_ID to send

	odcid           []byte // the client's first Destination Connection ID
	retrySCID       []byte // the Retry's Source Connection ID, if any
	peerInitialSCID []byte // the Source Connection ID of the peer's first packet
}

// init sets this end's first ID and, on a client, the peer's first.
func (s *connIDs) init(scid, dcid []byte) {
	s.local = append(s.local, localConnID{seq: 0, id: scid})
	s.nextLocalSeq = 1
	if dcid != nil {
		s.remote = append(s.remote, remoteConnID{seq: 0, id: dcid})
	}
}

// dcid returns the Destination Connection ID to send to.
func (s *connIDs) dcid() []byte {
	if len(s.remote) == 0 {
		return nil
	}
	return s.remote[0].id
}

// scid returns the Source Connection ID of long header packets.
func (s *connIDs) scid() []byte { return s.local[0].id }

// setPeerFirst records the Source Connection ID of the peer's first
// packet: the client's (server side), the server's (client side, which
// then sends to it).
func (s *connIDs) setPeerFirst(id []byte) {
	id = append([]byte(nil), id...)
	s.peerInitialSCID = id
	if len(s.remote) == 0 {
		s.remote = append(s.remote, remoteConnID{seq: 0, id: id})
	} else {
		s.remote[0].id = id
	}
}

// LocalConnIDs returns this end's connection IDs in use: those a listener
// routes the connection's datagrams by.
func (c *Conn) LocalConnIDs() [][]byte {
	ids := make([][]byte, len(c.cids.local))
	for i := range c.cids.local {
		ids[i] = c.cids.local[i].id
	}
	return ids
}

// LocalConnIDsIssued returns how many connection IDs this end has issued
// so far: a listener that routes by them looks at LocalConnIDs again only
// when it changes.
func (c *Conn) LocalConnIDsIssued() uint64 { return c.cids.nextLocalSeq }

// resetToken returns the stateless reset token of one of this end's IDs.
func (c *Conn) resetToken(id []byte) [StatelessResetTokenLen]byte {
	if c.cfg.StatelessResetKey != nil && !c.isClient {
		return c.cfg.StatelessResetKey.Token(id)
	}
	var t [StatelessResetTokenLen]byte
	io.ReadFull(c.cfg.Rand, t[:])
	return t
}

// maxIssuedConnIDs bounds the connection IDs this end keeps issued: the
// one in use and one spare, with which the peer can move to a new
// address (a NAT rebinding, a migration) unlinked from the old one; a new
// spare goes out as each is retired. Each more would cost every
// connection its bytes and its route in the listener.
const maxIssuedConnIDs = 2

// issueMore issues connection IDs up to the peer's
// active_connection_id_limit, at most maxIssuedConnIDs.
func (s *connIDs) issueMore(c *Conn) {
	limit := min(int(c.peer.activeConnIDLimit), maxIssuedConnIDs)
	for len(s.local) < limit {
		id, err := c.randomID(c.cfg.ConnIDLen)
		if err != nil {
			return
		}
		s.local = append(s.local, localConnID{seq: s.nextLocalSeq, id: id, token: c.resetToken(id), owed: true})
		s.nextLocalSeq++
	}
}

// onNewConnectionID takes a NEW_CONNECTION_ID frame (RFC 9000 section
// 19.15).
func (s *connIDs) onNewConnectionID(c *Conn, f *Frame) error {
	if len(s.dcid()) == 0 {
		return &TransportError{Code: ProtocolViolation, Reason: "NEW_CONNECTION_ID with a zero-length connection ID in use"}
	}
	known := false
	for i := range s.remote {
		r := &s.remote[i]
		if r.seq == f.SequenceNumber {
			if !bytes.Equal(r.id, f.ConnID) || !bytes.Equal(r.token[:], f.ResetToken) {
				return &TransportError{Code: ProtocolViolation, Reason: "NEW_CONNECTION_ID reuses a sequence number"}
			}
			known = true
		}
	}
	if f.SequenceNumber < s.retirePrior {
		s.retireOwed = append(s.retireOwed, f.SequenceNumber)
	} else if !known {
		r := remoteConnID{seq: f.SequenceNumber, id: append([]byte(nil), f.ConnID...), hasToken: true}
		copy(r.token[:], f.ResetToken)
		s.remote = append(s.remote, r)
	}
	if f.RetirePriorTo > s.retirePrior {
		s.retirePrior = f.RetirePriorTo
		keep := s.remote[:0]
		for _, r := range s.remote {
			if r.seq < s.retirePrior {
				s.retireOwed = append(s.retireOwed, r.seq)
			} else {
				keep = append(keep, r)
			}
		}
		s.remote = keep
		if len(s.remote) == 0 {
			return &TransportError{Code: ProtocolViolation, Reason: "every connection ID retired"}
		}
	}
	if uint64(len(s.remote)) > c.cfg.ActiveConnIDLimit {
		return &TransportError{Code: ConnectionIDLimitError, Reason: "more connection IDs than active_connection_id_limit"}
	}
	return nil
}

// onRetireConnectionID takes a RETIRE_CONNECTION_ID frame (RFC 9000
// section 19.16); dcid is the packet's Destination Connection ID.
func (s *connIDs) onRetireConnectionID(c *Conn, seq uint64, dcid []byte) error {
	if seq >= s.nextLocalSeq {
		return &TransportError{Code: ProtocolViolation, Reason: "RETIRE_CONNECTION_ID of an unissued sequence number"}
	}
	for i := range s.local {
		if s.local[i].seq != seq {
			continue
		}
		if bytes.Equal(s.local[i].id, dcid) {
			return &TransportError{Code: ProtocolViolation, Reason: "RETIRE_CONNECTION_ID of the packet's own connection ID"}
		}
		s.local = append(s.local[:i], s.local[i+1:]...)
		s.issueMore(c)
		return nil
	}
	return nil
}

// isStatelessReset reports whether a datagram that failed to decrypt ends
// with one of the peer's reset tokens.
func (s *connIDs) isStatelessReset(datagram []byte) bool {
	for i := range s.remote {
		if s.remote[i].hasToken && IsStatelessReset(datagram, &s.remote[i].token) {
			return true
		}
	}
	return false
}
