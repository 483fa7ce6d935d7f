package quic

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"hash"
)

// StatelessResetTokenLen is the length of a stateless reset token.
const StatelessResetTokenLen = resetTokenLen

// The sizes of a Stateless Reset (RFC 9000 section 10.3): the least a
// short header packet can be, and the most this package sends.
const (
	minStatelessReset = 21
	maxStatelessReset = 64
)

// StatelessResetKey derives stateless reset tokens from one static key,
// so that an endpoint that lost a connection's state can still reset it
// (RFC 9000 section 10.3.2): the token of a connection ID is
// HMAC-SHA256(key, connection ID) truncated to 16 bytes. Every server of
// a cluster shares the key. A StatelessResetKey serves one goroutine at a
// time.
type StatelessResetKey struct {
	mac hash.Hash
	sum [sha256.Size]byte
}

// NewStatelessResetKey returns a StatelessResetKey on key, which must be
// secret and at least 32 random bytes.
func NewStatelessResetKey(key []byte) *StatelessResetKey {
	return &StatelessResetKey{mac: hmac.New(sha256.New, key)}
}

// Token returns the stateless reset token of connID, one of this
// endpoint's connection IDs.
func (k *StatelessResetKey) Token(connID []byte) [StatelessResetTokenLen]byte {
	k.mac.Reset()
	k.mac.Write(connID)
	var t [StatelessResetTokenLen]byte
	copy(t[:], k.mac.Sum(k.sum[:0]))
	return t
}

// StatelessResetSize returns the size of the Stateless Reset to answer a
// datagram of received bytes with, or 0 if none may be sent: always
// smaller than what triggered it, so two endpoints cannot loop (RFC 9000
// section 10.3.3), at least 21 bytes, at most 64.
func StatelessResetSize(received int) int {
	size := min(received-1, maxStatelessReset)
	if size < minStatelessReset {
		return 0
	}
	return size
}

// AppendStatelessReset appends a Stateless Reset of size bytes (see
// StatelessResetSize) ending in token: it looks like a short header
// packet, its other bits random.
func AppendStatelessReset(b []byte, token [StatelessResetTokenLen]byte, size int) []byte {
	start := len(b)
	b = append(b, make([]byte, size-StatelessResetTokenLen)...)
	rand.Read(b[start:])
	b[start] = 0x40 | b[start]&0x3f
	return append(b, token[:]...)
}

// IsStatelessReset reports, in constant time, whether datagram ends in
// token, one the peer issued for a connection ID in use: if so the
// connection is reset and drains. A packet of any header form counts
// (RFC 9000 section 10.3.1).
func IsStatelessReset(datagram []byte, token *[StatelessResetTokenLen]byte) bool {
	if len(datagram) < minStatelessReset {
		return false
	}
	return subtle.ConstantTimeCompare(datagram[len(datagram)-StatelessResetTokenLen:], token[:]) == 1
}
