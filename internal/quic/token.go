package quic

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net/netip"
	"time"
)

// TokenKind tells the address validation tokens a server issues apart
// (RFC 9000 section 8.1.3 asks that it can).
type TokenKind uint8

// The token kinds: one sent in a Retry packet, used at once, and one sent
// in a NEW_TOKEN frame for a later connection.
const (
	TokenRetry    TokenKind = 1
	TokenNewToken TokenKind = 2
)

// The layout of a token: a random nonce, then sealed: the kind, the issue
// time in Unix nanoseconds and, for a Retry token, the Original
// Destination Connection ID, length-prefixed.
const (
	tokenNonceLen = 12
	tokenPlainMax = 1 + 8 + 1 + MaxConnIDLen
	tokenMaxLen   = tokenNonceLen + tokenPlainMax + Overhead
)

var errToken = errors.New("quic: invalid address validation token")

// TokenProtector seals and opens the address validation tokens of RFC
// 9000 section 8.1: AES-GCM under a server's static key, bound to the
// client's IP address (not its port, which NAT rebinding may change),
// stamped with their issue time. Only the server that made a token (or
// one sharing its key) can read it or forge one. A TokenProtector serves
// one goroutine at a time; Open returns views into its scratch space.
type TokenProtector struct {
	aead    cipher.AEAD
	plain   [tokenPlainMax]byte
	scratch [tokenMaxLen]byte
	ad      [16]byte
}

// NewTokenProtector returns a TokenProtector on key, an AES key of 16 or
// 32 random bytes kept secret and shared by the servers of one service.
func NewTokenProtector(key []byte) (*TokenProtector, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &TokenProtector{aead: aead}, nil
}

// addrData returns the client's IP address as additional data.
func (p *TokenProtector) addrData(addr netip.Addr) []byte {
	p.ad = addr.Unmap().As16()
	return p.ad[:]
}

// AppendToken appends a token of kind for the client at addr, issued at
// now; a Retry token carries odcid, the Destination Connection ID of the
// client's first Initial, which the server needs once the client returns
// (transport parameter original_destination_connection_id).
func (p *TokenProtector) AppendToken(b []byte, kind TokenKind, addr netip.Addr, odcid []byte, now time.Time) []byte {
	plain := append(p.plain[:0], byte(kind))
	plain = binary.BigEndian.AppendUint64(plain, uint64(now.UnixNano()))
	if kind == TokenRetry {
		plain = append(plain, byte(len(odcid)))
		plain = append(plain, odcid...)
	}
	start := len(b)
	b = append(b, make([]byte, tokenNonceLen)...)
	rand.Read(b[start:])
	nonce := b[start:]
	return p.aead.Seal(b, nonce[:tokenNonceLen], plain, p.addrData(addr))
}

// Open checks a token an Initial packet carried from addr at now: it must
// be one of these, for that address, of kind, and younger than maxAge. It
// returns the Retry token's odcid, a view valid until the next Open.
func (p *TokenProtector) Open(token []byte, kind TokenKind, addr netip.Addr, now time.Time, maxAge time.Duration) (odcid []byte, err error) {
	if len(token) < tokenNonceLen+1+8+Overhead || len(token) > tokenMaxLen {
		return nil, errToken
	}
	nonce, sealed := token[:tokenNonceLen], token[tokenNonceLen:]
	plain, err := p.aead.Open(p.scratch[:0], nonce, sealed, p.addrData(addr))
	if err != nil || TokenKind(plain[0]) != kind {
		return nil, errToken
	}
	issued := time.Unix(0, int64(binary.BigEndian.Uint64(plain[1:9])))
	if age := now.Sub(issued); age < 0 || age > maxAge {
		return nil, errToken
	}
	if kind != TokenRetry {
		return nil, nil
	}
	rest := plain[9:]
	if len(rest) < 1 || int(rest[0]) != len(rest)-1 {
		return nil, errToken
	}
	return rest[1:], nil
}
