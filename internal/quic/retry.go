package quic

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"sync"
)

// The fixed key and nonce of version 1's Retry integrity tag (RFC 9001
// section 5.8).
var (
	retryKeyV1   = []byte{0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a, 0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e}
	retryNonceV1 = []byte{0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb}
)

// retryAEAD is the AES-128-GCM of the Retry integrity tag, made once.
var retryAEAD = sync.OnceValue(func() cipher.AEAD {
	block, err := aes.NewCipher(retryKeyV1)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
})

// RetryIntegrityTag computes the tag of a Retry packet (RFC 9001 section
// 5.8) and appends it to dst: the AEAD over the Retry pseudo-packet, which
// is the Original Destination Connection ID (length-prefixed) followed by
// retry, the Retry packet without its tag. Retry is rare; this allocates
// the pseudo-packet.
func RetryIntegrityTag(dst, odcid, retry []byte) []byte {
	pseudo := make([]byte, 0, 1+len(odcid)+len(retry))
	pseudo = append(pseudo, byte(len(odcid)))
	pseudo = append(pseudo, odcid...)
	pseudo = append(pseudo, retry...)
	return retryAEAD().Seal(dst, retryNonceV1, nil, pseudo)
}

// AppendRetry appends a version 1 Retry packet with its integrity tag: the
// server's answer to a client Initial sent to odcid. dcid is the client's
// Source Connection ID, scid the server's new one; unused fills the first
// byte's four arbitrary low bits.
func AppendRetry(b []byte, unused byte, dcid, scid, token, odcid []byte) []byte {
	start := len(b)
	b = append(b, 0xf0|unused&0x0f)
	b = binary.BigEndian.AppendUint32(b, Version1)
	b = append(b, byte(len(dcid)))
	b = append(b, dcid...)
	b = append(b, byte(len(scid)))
	b = append(b, scid...)
	b = append(b, token...)
	return RetryIntegrityTag(b, odcid, b[start:])
}

// ValidRetry reports whether the Retry packet pkt carries the integrity
// tag its contents and odcid, the Destination Connection ID the client
// first sent, call for. A client discards a Retry that fails.
func ValidRetry(pkt, odcid []byte) bool {
	if len(pkt) < retryTagLen {
		return false
	}
	var tag [retryTagLen]byte
	body := pkt[:len(pkt)-retryTagLen]
	got := RetryIntegrityTag(tag[:0], odcid, body)
	return subtle.ConstantTimeCompare(got, pkt[len(body):]) == 1
}
