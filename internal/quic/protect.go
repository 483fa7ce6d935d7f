package quic

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/tls"
	"errors"

	"golang.org/x/crypto/chacha20poly1305"
)

// Overhead is the bytes AEAD protection adds to a packet: the 16-byte tag
// of every suite QUIC version 1 uses.
const Overhead = 16

// sampleLen is the header protection sample's length (RFC 9001 section
// 5.4.2); the sample starts 4 bytes after the packet number field starts.
const sampleLen = 16

var (
	errShortPkt   = errors.New("quic: packet too short to sample for header protection")
	errNoRoom     = errors.New("quic: no capacity for the AEAD tag")
	errDecrypt    = errors.New("quic: packet authentication failed")
	errBadPNStart = errors.New("quic: packet number offset out of range")
)

// Keys protects or unprotects the packets of one direction at one
// encryption level (RFC 9001 section 5): the AEAD with its IV, and the
// header protection key. It is made from a TLS secret with NewKeys, as
// crypto/tls's QUICConn reports them (QUICSetReadSecret,
// QUICSetWriteSecret), or by NewInitialKeys. A Keys keeps scratch space
// and serves one goroutine at a time: each event loop keeps its own.
//
// A Keys holds its secret and header protection key and makes its
// cipher objects, with the packet key and IV derived again from the
// secret, at the first packet it protects or opens; release lets them go
// (a connection that has been quiet a while holds under a hundred bytes
// per Keys, not kilobytes) and the next packet makes them again.
// Protecting and unprotecting with the ciphers made allocate nothing.
type Keys struct {
	suite     uint16
	keyLen    uint8
	secretLen uint8
	hpKey     [32]byte // keyLen bytes; the same in every key phase
	secret    [48]byte // secretLen bytes
	c         *keyCiphers
}

// keyCiphers is what a Keys makes to protect and unprotect packets: the
// AEAD, the AES header protection cipher (nil for ChaCha20's), the IV,
// and scratch space.
type keyCiphers struct {
	aead  cipher.AEAD
	hp    cipher.Block
	iv    [12]byte
	nonce [12]byte
	mask  [aes.BlockSize]byte
}

// NewKeys derives the packet protection keys of secret for the TLS 1.3
// cipher suite named by suite: tls.TLS_AES_128_GCM_SHA256,
// tls.TLS_AES_256_GCM_SHA384 or tls.TLS_CHACHA20_POLY1305_SHA256 (its
// AEAD from golang.org/x/crypto, its header protection ChaCha20 itself).
func NewKeys(suite uint16, secret []byte) (*Keys, error) {
	m, err := deriveKeyMaterial(suite, secret)
	if err != nil {
		return nil, err
	}
	if len(secret) > 48 {
		return nil, errUnsupportedSuite
	}
	k := &Keys{suite: suite, keyLen: uint8(len(m.key)), secretLen: uint8(len(secret))}
	copy(k.hpKey[:], m.hp)
	copy(k.secret[:], secret)
	return k, nil
}

// ciphers returns the cipher objects, made from the secret if they are
// not made.
func (k *Keys) ciphers() (*keyCiphers, error) {
	if k.c != nil {
		return k.c, nil
	}
	m, err := deriveKeyMaterial(k.suite, k.secret[:k.secretLen])
	if err != nil {
		return nil, err
	}
	c := &keyCiphers{}
	copy(c.iv[:], m.iv)
	if k.suite == tls.TLS_CHACHA20_POLY1305_SHA256 {
		if c.aead, err = chacha20poly1305.New(m.key); err != nil {
			return nil, err
		}
	} else {
		block, err := aes.NewCipher(m.key)
		if err != nil {
			return nil, err
		}
		if c.aead, err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
		if c.hp, err = aes.NewCipher(k.hpKey[:k.keyLen]); err != nil {
			return nil, err
		}
	}
	k.c = c
	return c, nil
}

// release lets the cipher objects go; the next packet makes them again.
func (k *Keys) release() {
	if k != nil {
		k.c = nil
	}
}

// Next returns the keys of the next key phase (RFC 9001 section 6): the
// packet protection of NextSecret's secret, the header protection key
// unchanged.
func (k *Keys) Next() (*Keys, error) {
	secret, err := NextSecret(k.suite, k.secret[:k.secretLen])
	if err != nil {
		return nil, err
	}
	n := &Keys{suite: k.suite, keyLen: k.keyLen, secretLen: uint8(len(secret)), hpKey: k.hpKey}
	copy(n.secret[:], secret)
	return n, nil
}

// setNonce forms the AEAD nonce of packet number pn: the IV with pn,
// big-endian, XORed into its low 8 bytes (RFC 9001 section 5.3).
func (c *keyCiphers) setNonce(pn uint64) {
	c.nonce = c.iv
	for i := range 8 {
		c.nonce[11-i] ^= byte(pn >> (8 * i))
	}
}

// headerMask computes the header protection mask of the sample taken at
// pnOffset+4 (RFC 9001 section 5.4.3) into c.mask, and returns c.
func (k *Keys) headerMask(pkt []byte, pnOffset int) (*keyCiphers, error) {
	if pnOffset < 1 {
		return nil, errBadPNStart
	}
	if len(pkt) < pnOffset+4+sampleLen {
		return nil, errShortPkt
	}
	c, err := k.ciphers()
	if err != nil {
		return nil, err
	}
	sample := pkt[pnOffset+4 : pnOffset+4+sampleLen]
	if c.hp == nil {
		chachaMask((*[5]byte)(c.mask[:5]), &k.hpKey, sample)
		return c, nil
	}
	c.hp.Encrypt(c.mask[:], sample)
	return c, nil
}

// applyMask XORs the mask into the first byte's protected bits and into
// the pnLen bytes of the packet number field.
func (c *keyCiphers) applyMask(pkt []byte, pnOffset, pnLen int) {
	if IsLongHeader(pkt[0]) {
		pkt[0] ^= c.mask[0] & 0x0f
	} else {
		pkt[0] ^= c.mask[0] & 0x1f
	}
	for i := range pnLen {
		pkt[pnOffset+i] ^= c.mask[1+i]
	}
}

// Protect seals the packet in pkt in place and returns it, Overhead bytes
// longer. pkt holds the unprotected header, whose packet number field
// starts at pnOffset and is as long as its first byte says, then the
// plaintext payload; pn is the full packet number. cap(pkt) must leave
// Overhead bytes, and the payload must be long enough to sample: 4 bytes
// of packet number and payload together before the tag (RFC 9001 section
// 5.4.2; pad with PADDING frames otherwise).
func (k *Keys) Protect(pkt []byte, pnOffset int, pn uint64) ([]byte, error) {
	if pnOffset < 1 || pnOffset >= len(pkt) {
		return nil, errBadPNStart
	}
	hdrLen := pnOffset + PacketNumberLenOf(pkt[0])
	if hdrLen > len(pkt) {
		return nil, errBadPNStart
	}
	if cap(pkt)-len(pkt) < Overhead {
		return nil, errNoRoom
	}
	if len(pkt)+Overhead < pnOffset+4+sampleLen {
		return nil, errShortPkt
	}
	c, err := k.ciphers()
	if err != nil {
		return nil, err
	}
	c.setNonce(pn)
	payload := pkt[hdrLen:]
	c.aead.Seal(payload[:0], c.nonce[:], payload, pkt[:hdrLen])
	pkt = pkt[:len(pkt)+Overhead]
	if _, err := k.headerMask(pkt, pnOffset); err != nil {
		return nil, err
	}
	c.applyMask(pkt, pnOffset, hdrLen-pnOffset)
	return pkt, nil
}

// UnprotectHeader removes header protection from pkt in place (RFC 9001
// section 5.4) and returns the full packet number, recovered against
// largest, the largest packet number received in the space (-1 if none),
// and the header's length. It rewrites the first byte and the packet
// number field of pkt. The header protection key does not change at a
// key update, so the caller may read the key phase bit now and then Open
// with the keys it names.
func (k *Keys) UnprotectHeader(pkt []byte, pnOffset int, largest int64) (pn uint64, hdrLen int, err error) {
	c, err := k.headerMask(pkt, pnOffset)
	if err != nil {
		return 0, 0, err
	}
	if IsLongHeader(pkt[0]) {
		pkt[0] ^= c.mask[0] & 0x0f
	} else {
		pkt[0] ^= c.mask[0] & 0x1f
	}
	pnLen := PacketNumberLenOf(pkt[0])
	for i := range pnLen {
		pkt[pnOffset+i] ^= c.mask[1+i]
	}
	truncated := readPacketNumber(pkt[pnOffset : pnOffset+pnLen])
	return DecodePacketNumber(largest, truncated, 8*pnLen), pnOffset + pnLen, nil
}

// Open decrypts, in place, the payload of a packet whose header (hdrLen
// bytes) UnprotectHeader has restored, and returns the plaintext, a view
// into pkt. A packet that fails authentication must be discarded (RFC
// 9001 section 5.3); its bytes are then left undefined.
func (k *Keys) Open(pkt []byte, hdrLen int, pn uint64) ([]byte, error) {
	if hdrLen > len(pkt) || len(pkt)-hdrLen < Overhead {
		return nil, errDecrypt
	}
	c, err := k.ciphers()
	if err != nil {
		return nil, err
	}
	c.setNonce(pn)
	payload := pkt[hdrLen:]
	out, err := c.aead.Open(payload[:0], c.nonce[:], payload, pkt[:hdrLen])
	if err != nil {
		return nil, errDecrypt
	}
	return out, nil
}

// Unprotect removes header protection and decrypts pkt in place with
// these keys alone: UnprotectHeader then Open. It returns the packet
// number and the plaintext payload.
func (k *Keys) Unprotect(pkt []byte, pnOffset int, largest int64) (pn uint64, payload []byte, err error) {
	pn, hdrLen, err := k.UnprotectHeader(pkt, pnOffset, largest)
	if err != nil {
		return 0, nil, err
	}
	payload, err = k.Open(pkt, hdrLen, pn)
	return pn, payload, err
}
