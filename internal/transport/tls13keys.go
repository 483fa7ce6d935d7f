package transport

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"hash"
	"slices"
)

// TLS 1.3 record protection (RFC 8446 section 5) for a connection whose
// handshake crypto/tls has finished: the traffic keys derived from the
// application traffic secrets (section 7.3), the AEAD nonce per record
// (section 5.3) and key updates (section 4.6.3). Only the AES-GCM suites
// are taken here; a connection on any other suite keeps crypto/tls's own
// record layer.

// aeadOverhead is the AES-GCM tag's size.
const aeadOverhead = 16

// maxCiphertext13 bounds a TLS 1.3 record's encrypted length (RFC 8446
// 5.2: 2^14 + 256); a longer one is a record_overflow.
const maxCiphertext13 = maxPlaintext + 256

// keyUpdateEvery is how many records are sealed under one key before the
// sender updates it: RFC 8446 5.5 allows AES-GCM 2^24.5 full-size records
// per key.
const keyUpdateEvery = 1 << 24

// suite13 is what record protection needs of a TLS 1.3 cipher suite.
type suite13 struct {
	keyLen int
	hash   func() hash.Hash
}

// suiteFor returns the record parameters of a TLS 1.3 AES-GCM suite, and
// false for any other.
func suiteFor(id uint16) (*suite13, bool) {
	switch id {
	case tls.TLS_AES_128_GCM_SHA256:
		return &aes128GCM, true
	case tls.TLS_AES_256_GCM_SHA384:
		return &aes256GCM, true
	}
	return nil, false
}

// The suites, shared by every direction on them.
var (
	aes128GCM = suite13{16, sha256.New}
	aes256GCM = suite13{32, sha512.New384}
)

// hkdfExpandLabel is RFC 8446 7.1's HKDF-Expand-Label with an empty
// context.
func hkdfExpandLabel(h func() hash.Hash, secret []byte, label string, n int) ([]byte, error) {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full))
	info = binary.BigEndian.AppendUint16(info, uint16(n))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, 0) // context: empty
	return hkdf.Expand(h, secret, string(info), n)
}

// direction is one direction's record protection: its traffic secret
// (kept for key updates), the AEAD keyed from it, the IV and the record
// sequence number.
type direction struct {
	suite *suite13
	// aead is keyed from key; nil while shed (quiet): the next record
	// makes it again. used says a record went through since the last
	// quiet.
	aead *sealer
	seq  uint64
	// The secret and the key in place (secret[:secretLen],
	// key[:suite.keyLen]), not in allocations of their own.
	secret    [48]byte
	key       [32]byte
	iv        [12]byte
	secretLen uint8
	used      bool
}

// sealer is a direction's keyed AEAD, with the nonce's scratch beside it
// (passing it to the AEAD then allocates nothing): both only while keyed,
// so a resting direction is 120 bytes.
type sealer struct {
	cipher.AEAD
	nonce [12]byte
}

// newDirection keys a direction from a traffic secret, its sequence
// number at 0.
func newDirection(s *suite13, secret []byte) (*direction, error) {
	d := &direction{suite: s}
	if err := d.setSecret(secret); err != nil {
		return nil, err
	}
	return d, nil
}

// setSecret derives the key and IV of secret (RFC 8446 7.3) and restarts
// the sequence number.
func (d *direction) setSecret(secret []byte) error {
	key, err := hkdfExpandLabel(d.suite.hash, secret, "key", d.suite.keyLen)
	if err != nil {
		return err
	}
	iv, err := hkdfExpandLabel(d.suite.hash, secret, "iv", len(d.iv))
	if err != nil {
		return err
	}
	if len(secret) > len(d.secret) || len(key) > len(d.key) {
		return errors.New("transport: tls secret or key too long")
	}
	d.secretLen = uint8(copy(d.secret[:], secret))
	copy(d.key[:], key)
	d.aead, d.seq = nil, 0
	copy(d.iv[:], iv)
	_, err = d.keyed()
	return err
}

// keyed returns d's AEAD, keyed again from d.key if quiet shed it, and
// marks d used.
func (d *direction) keyed() (*sealer, error) {
	d.used = true
	if d.aead != nil {
		return d.aead, nil
	}
	block, err := aes.NewCipher(d.key[:d.suite.keyLen])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	d.aead = &sealer{AEAD: aead}
	return d.aead, nil
}

// quiet sheds d's AEAD (AES round keys and GCM tables: about 770 bytes)
// if no record went through d since the last quiet, and reports whether
// d holds none now.
func (d *direction) quiet() bool {
	if d.used {
		d.used = false
		return false
	}
	d.rest()
	return true
}

// rest sheds d's AEAD now.
func (d *direction) rest() { d.aead, d.used = nil, false }

// update moves to the next traffic secret (RFC 8446 7.2), as a KeyUpdate
// asks.
func (d *direction) update() error {
	cur := d.secret[:d.secretLen]
	next, err := hkdfExpandLabel(d.suite.hash, cur, "traffic upd", len(cur))
	if err != nil {
		return err
	}
	return d.setSecret(next)
}

// nextNonce returns the nonce of the record at d.seq: the IV with the
// sequence number, big-endian, XORed into its last eight bytes. d is keyed.
func (d *direction) nextNonce() []byte {
	n := &d.aead.nonce
	*n = d.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], d.seq)
	for i := range s {
		n[4+i] ^= s[i]
	}
	return n[:]
}

// errSeqExhausted is a sequence number that would wrap: never reached in
// practice (keys are updated long before), but a wrapped nonce would be
// reused.
var errSeqExhausted = errors.New("transport: tls record sequence number exhausted")

// seal appends to out one record of content type typ carrying data:
// header, then data, typ and the tag encrypted in place. It allocates
// only when out has no room for recordHeaderLen+len(data)+1+aeadOverhead
// more bytes.
func (d *direction) seal(out []byte, typ byte, data []byte) ([]byte, error) {
	if d.seq == ^uint64(0) {
		return out, errSeqExhausted
	}
	start := len(out)
	n := len(data) + 1 + aeadOverhead
	out = append(out, 0x17, 0x03, 0x03, byte(n>>8), byte(n))
	out = append(out, data...)
	out = append(out, typ)
	out = slices.Grow(out, aeadOverhead)
	aead, err := d.keyed()
	if err != nil {
		return out[:start], err
	}
	body := out[start+recordHeaderLen:]
	sealed := aead.Seal(body[:0], d.nextNonce(), body, out[start:start+recordHeaderLen])
	d.seq++
	return out[:start+recordHeaderLen+len(sealed)], nil
}

// open decrypts a whole record (header and body) into dst, which may be
// the record's body itself (in place) or must not overlap it, and returns
// the inner content: its type and the plaintext without padding.
func (d *direction) open(dst, record []byte) (byte, []byte, error) {
	if d.seq == ^uint64(0) {
		return 0, nil, errSeqExhausted
	}
	aead, err := d.keyed()
	if err != nil {
		return 0, nil, err
	}
	plain, err := aead.Open(dst, d.nextNonce(), record[recordHeaderLen:], record[:recordHeaderLen])
	if err != nil {
		return 0, nil, err
	}
	d.seq++
	// The content type is the last non-zero byte; zeros after it are
	// padding (RFC 8446 5.4).
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 {
		return 0, nil, errNoContentType
	}
	return plain[i], plain[:i], nil
}

// errNoContentType is a record whose plaintext is all padding.
var errNoContentType = errors.New("transport: tls record has no content type")
