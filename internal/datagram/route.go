package datagram

import "errors"

// MaxConnIDLen is the longest connection ID QUIC version 1 allows
// (RFC 9000 section 17.2); RFC 8999 lets other versions use up to 255.
const MaxConnIDLen = 20

// ErrNoConnID is DestConnID's error for a datagram too short to carry
// the connection ID its header announces.
var ErrNoConnID = errors.New("datagram: too short for its destination connection ID")

// DestConnID returns the destination connection ID of the QUIC packet at
// the start of p, by the invariants every QUIC version keeps (RFC 8999
// section 5): a long header (first bit set) gives the ID's length in the
// byte after the 4-byte version; a short header carries no length, and
// the ID is the shortLen bytes after the first byte, shortLen being the
// length the receiving endpoint chose for the IDs it issues. The result
// is a view into p.
func DestConnID(p []byte, shortLen int) ([]byte, error) {
	if len(p) == 0 {
		return nil, ErrNoConnID
	}
	if p[0]&0x80 == 0 { // short header
		if len(p) < 1+shortLen {
			return nil, ErrNoConnID
		}
		return p[1 : 1+shortLen], nil
	}
	if len(p) < 6 {
		return nil, ErrNoConnID
	}
	n := int(p[5])
	if len(p) < 6+n {
		return nil, ErrNoConnID
	}
	return p[6 : 6+n], nil
}

// Router maps the connection IDs an endpoint issued to their owners (a
// loop's number, a connection's index: whatever V the transport routes
// by), so that a datagram reaches its connection whichever socket or
// address it arrived from. It is not safe for concurrent use: each loop
// keeps its own, or the transport guards a shared one.
type Router[V any] struct {
	shortLen int
	byID     map[string]V
}

// NewRouter returns an empty Router for an endpoint whose connection IDs
// are all shortLen bytes long (what short headers need to be read).
func NewRouter[V any](shortLen int) *Router[V] {
	return &Router[V]{shortLen: shortLen, byID: make(map[string]V)}
}

// Add routes to v the datagrams whose connection ID is id.
func (r *Router[V]) Add(id []byte, v V) { r.byID[string(id)] = v }

// Remove stops routing id (a retired or closed connection's ID).
func (r *Router[V]) Remove(id []byte) { delete(r.byID, string(id)) }

// Len returns how many connection IDs are routed.
func (r *Router[V]) Len() int { return len(r.byID) }

// Route returns the owner of the datagram p, by its destination
// connection ID; ok is false for a datagram whose ID is not routed (a new
// connection's first Initial, or a stale or forged ID: the transport
// decides) or that is too short to carry one. It allocates nothing.
func (r *Router[V]) Route(p []byte) (v V, ok bool) {
	id, err := DestConnID(p, r.shortLen)
	if err != nil {
		return v, false
	}
	v, ok = r.byID[string(id)]
	return v, ok
}
