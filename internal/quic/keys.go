package quic

import (
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"errors"
	"hash"
)

// initialSaltV1 is the salt of version 1's Initial secrets (RFC 9001
// section 5.2).
var initialSaltV1 = []byte{
	0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
}

// errUnsupportedSuite reports a cipher suite QUIC does not use.
var errUnsupportedSuite = errors.New("quic: unsupported cipher suite")

// suiteParams returns the hash and the AEAD key length of a TLS 1.3 cipher
// suite (RFC 9001 section 5.3; CCM is not offered by crypto/tls).
func suiteParams(suite uint16) (func() hash.Hash, int, error) {
	switch suite {
	case tls.TLS_AES_128_GCM_SHA256:
		return sha256.New, 16, nil
	case tls.TLS_AES_256_GCM_SHA384:
		return sha512.New384, 32, nil
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		return sha256.New, 32, nil
	}
	return nil, 0, errUnsupportedSuite
}

// expandLabel is TLS 1.3's HKDF-Expand-Label (RFC 8446 section 7.1) with
// an empty context, as QUIC uses it.
func expandLabel(h func() hash.Hash, secret []byte, label string, length int) ([]byte, error) {
	const prefix = "tls13 "
	info := make([]byte, 0, 4+len(prefix)+len(label))
	info = append(info, byte(length>>8), byte(length), byte(len(prefix)+len(label)))
	info = append(info, prefix...)
	info = append(info, label...)
	info = append(info, 0) // the empty context
	return hkdf.Expand(h, secret, string(info), length)
}

// InitialSecrets derives the client's and the server's Initial secrets
// from the Destination Connection ID of the client's first Initial packet
// (RFC 9001 section 5.2).
func InitialSecrets(dcid []byte) (client, server []byte, err error) {
	initial, err := hkdf.Extract(sha256.New, dcid, initialSaltV1)
	if err != nil {
		return nil, nil, err
	}
	if client, err = expandLabel(sha256.New, initial, "client in", sha256.Size); err != nil {
		return nil, nil, err
	}
	server, err = expandLabel(sha256.New, initial, "server in", sha256.Size)
	return client, server, err
}

// NewInitialKeys returns the Keys protecting the client's and the server's
// Initial packets of a connection whose client first chose dcid as the
// Destination Connection ID. A client seals with client and opens with
// server; a server the other way round.
func NewInitialKeys(dcid []byte) (client, server *Keys, err error) {
	cs, ss, err := InitialSecrets(dcid)
	if err != nil {
		return nil, nil, err
	}
	if client, err = NewKeys(tls.TLS_AES_128_GCM_SHA256, cs); err != nil {
		return nil, nil, err
	}
	server, err = NewKeys(tls.TLS_AES_128_GCM_SHA256, ss)
	return client, server, err
}

// keyMaterial is what one secret yields: the AEAD key and IV and the
// header protection key (RFC 9001 section 5.1).
type keyMaterial struct {
	key, iv, hp []byte
}

// deriveKeyMaterial expands secret with the "quic key", "quic iv" and
// "quic hp" labels for suite.
func deriveKeyMaterial(suite uint16, secret []byte) (keyMaterial, error) {
	var m keyMaterial
	h, keyLen, err := suiteParams(suite)
	if err != nil {
		return m, err
	}
	if m.key, err = expandLabel(h, secret, "quic key", keyLen); err != nil {
		return m, err
	}
	if m.iv, err = expandLabel(h, secret, "quic iv", 12); err != nil {
		return m, err
	}
	m.hp, err = expandLabel(h, secret, "quic hp", keyLen)
	return m, err
}

// NextSecret returns the secret that follows secret at a key update (RFC
// 9001 section 6.1): HKDF-Expand-Label(secret, "quic ku", "", hash
// length) with the suite's hash.
func NextSecret(suite uint16, secret []byte) ([]byte, error) {
	h, _, err := suiteParams(suite)
	if err != nil {
		return nil, err
	}
	return expandLabel(h, secret, "quic ku", h().Size())
}

// AEADLimits returns the limits of RFC 9001 section 6.6 for suite: how
// many packets one key may protect before a key update is due
// (confidentiality), and how many packets failing authentication a
// connection may see before it closes with AEAD_LIMIT_REACHED
// (integrity). ok is false for a suite QUIC does not use.
func AEADLimits(suite uint16) (confidentiality, integrity uint64, ok bool) {
	switch suite {
	case tls.TLS_AES_128_GCM_SHA256, tls.TLS_AES_256_GCM_SHA384:
		return 1 << 23, 1 << 52, true
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		return MaxPacketNumber + 1, 1 << 36, true // no confidentiality limit below 2^62 packets
	}
	return 0, 0, false
}
