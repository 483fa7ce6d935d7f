package quic

import (
	"encoding/binary"
	"errors"
)

// Version1 is QUIC version 1 (RFC 9000).
const Version1 uint32 = 0x00000001

// MaxConnIDLen is the longest connection ID version 1 allows (RFC 9000
// section 17.2).
const MaxConnIDLen = 20

// PacketType names a packet's kind: the four long header types of version
// 1, the short header (1-RTT) packet, Version Negotiation, and a long
// header packet of another version.
type PacketType uint8

// The packet types. The long header ones carry their wire value (RFC 9000
// section 17.2, Table 5).
const (
	PacketInitial            PacketType = 0x0
	Packet0RTT               PacketType = 0x1
	PacketHandshake          PacketType = 0x2
	PacketRetry              PacketType = 0x3
	Packet1RTT               PacketType = 0x4
	PacketVersionNegotiation PacketType = 0x5
	PacketOtherVersion       PacketType = 0x6
)

// retryTagLen is the length of a Retry packet's integrity tag.
const retryTagLen = 16

var (
	errFixedBit    = errors.New("quic: fixed bit is zero")
	errConnIDLen   = errors.New("quic: connection ID too long")
	errNotLong     = errors.New("quic: not a long header packet")
	errPacketLen   = errors.New("quic: Length field runs past the datagram")
	errBadVersionN = errors.New("quic: malformed version negotiation packet")
)

// LongHeader is a parsed long header (RFC 9000 section 17.2). Its byte
// slices are views into the datagram it was parsed from, valid while that
// buffer is. The packet number field is still under header protection
// when parsed: its length is in the protected low bits of the first byte.
type LongHeader struct {
	Type      PacketType
	Version   uint32
	DstConnID []byte
	SrcConnID []byte
	// Token is an Initial packet's token, or a Retry packet's Retry
	// Token; empty otherwise.
	Token []byte
	// Length is the Length field: the packet number and the protected
	// payload. Zero for Retry.
	Length uint64
	// PNOffset is where the packet number field starts, counted from the
	// first byte of the packet. Zero for Retry.
	PNOffset int
	// PacketLen is the packet's size in the datagram; the next coalesced
	// packet, if any, starts there.
	PacketLen int
	// IntegrityTag is a Retry packet's 16-byte tag; nil otherwise.
	IntegrityTag []byte
}

// IsLongHeader reports whether a packet starting with first has a long
// header.
func IsLongHeader(first byte) bool { return first&0x80 != 0 }

// PacketNumberLenOf returns the packet number field length, 1 to 4,
// carried in the first byte once header protection is removed.
func PacketNumberLenOf(first byte) int { return int(first&0x03) + 1 }

// ParseLongHeader parses the version 1 long header packet at the start of
// b, which may hold further coalesced packets after it. It does not
// allocate. A Version Negotiation packet (version 0) is reported with
// Type PacketVersionNegotiation and only its connection IDs; use
// ParseVersionNegotiation for its versions. For another version only the
// invariant fields (RFC 8999) are parsed and Type is PacketOtherVersion:
// a server answers such a packet with Version Negotiation.
func ParseLongHeader(b []byte) (LongHeader, error) {
	var h LongHeader
	if len(b) < 7 {
		return h, errTruncated
	}
	if !IsLongHeader(b[0]) {
		return h, errNotLong
	}
	h.Version = binary.BigEndian.Uint32(b[1:5])
	p := 5
	var ok bool
	if h.DstConnID, p, ok = connID(b, p); !ok {
		return h, errTruncated
	}
	if h.SrcConnID, p, ok = connID(b, p); !ok {
		return h, errTruncated
	}
	switch h.Version {
	case 0:
		h.Type = PacketVersionNegotiation
		h.PacketLen = len(b)
		return h, nil
	case Version1:
	default:
		h.Type = PacketOtherVersion
		h.PacketLen = len(b)
		return h, nil
	}
	if len(h.DstConnID) > MaxConnIDLen || len(h.SrcConnID) > MaxConnIDLen {
		return h, errConnIDLen
	}
	if b[0]&0x40 == 0 {
		return h, errFixedBit
	}
	h.Type = PacketType(b[0]>>4) & 0x3
	if h.Type == PacketRetry {
		if len(b)-p < retryTagLen {
			return h, errTruncated
		}
		h.Token = b[p : len(b)-retryTagLen]
		h.IntegrityTag = b[len(b)-retryTagLen:]
		h.PacketLen = len(b)
		return h, nil
	}
	if h.Type == PacketInitial {
		tl, n, err := ParseVarint(b[p:])
		if err != nil {
			return h, err
		}
		p += n
		if tl > uint64(len(b)-p) {
			return h, errTruncated
		}
		h.Token = b[p : p+int(tl)]
		p += int(tl)
	}
	length, n, err := ParseVarint(b[p:])
	if err != nil {
		return h, err
	}
	p += n
	if length > uint64(len(b)-p) {
		return h, errPacketLen
	}
	h.Length = length
	h.PNOffset = p
	h.PacketLen = p + int(length)
	return h, nil
}

// connID reads a length-prefixed connection ID at b[p:].
func connID(b []byte, p int) ([]byte, int, bool) {
	if p >= len(b) {
		return nil, p, false
	}
	n := int(b[p])
	p++
	if n > len(b)-p {
		return nil, p, false
	}
	return b[p : p+n], p + n, true
}

// AppendLongHeader appends a version 1 long header of type typ (Initial,
// 0-RTT or Handshake) up to and including the packet number field: pn
// truncated to pnLen bytes. length is the Length field's value (packet
// number, payload and AEAD tag); it is written in 2 bytes when it fits, so
// a caller that learns it later can fix it with PutVarintLen at PNOffset-2.
// The token is written only for Initial. The result is unprotected.
func AppendLongHeader(b []byte, typ PacketType, dcid, scid, token []byte, length uint64, pn uint64, pnLen int) []byte {
	b = append(b, 0xc0|byte(typ)<<4|byte(pnLen-1))
	b = binary.BigEndian.AppendUint32(b, Version1)
	b = append(b, byte(len(dcid)))
	b = append(b, dcid...)
	b = append(b, byte(len(scid)))
	b = append(b, scid...)
	if typ == PacketInitial {
		b = AppendVarint(b, uint64(len(token)))
		b = append(b, token...)
	}
	n := VarintLen(length)
	if n < 2 {
		n = 2
	}
	b = AppendVarintLen(b, length, n)
	return AppendPacketNumber(b, pn, pnLen)
}

// ShortHeader is a parsed short header (RFC 9000 section 17.3). DstConnID
// is a view into the datagram. Spin is readable at once; the key phase
// and the packet number length are under header protection until it is
// removed (see KeyPhase and PacketNumberLenOf on the first byte then).
type ShortHeader struct {
	Spin      bool
	DstConnID []byte
	// PNOffset is where the packet number field starts: 1 + len(DstConnID).
	PNOffset int
}

// ParseShortHeader parses the short header at the start of b, whose
// Destination Connection ID has the length dcidLen this endpoint chose.
// A short header packet fills the rest of its datagram.
func ParseShortHeader(b []byte, dcidLen int) (ShortHeader, error) {
	var h ShortHeader
	if len(b) < 1+dcidLen {
		return h, errTruncated
	}
	if IsLongHeader(b[0]) {
		return h, errors.New("quic: not a short header packet")
	}
	if b[0]&0x40 == 0 {
		return h, errFixedBit
	}
	h.Spin = b[0]&0x20 != 0
	h.DstConnID = b[1 : 1+dcidLen]
	h.PNOffset = 1 + dcidLen
	return h, nil
}

// ReservedBitsSet reports whether a first byte, once header protection is
// removed, has its reserved bits set: two in a long header, 0x0c, two in a
// short one, 0x18. A packet that authenticates with them set is a
// PROTOCOL_VIOLATION (RFC 9000 sections 17.2 and 17.3.1).
func ReservedBitsSet(first byte) bool {
	if IsLongHeader(first) {
		return first&0x0c != 0
	}
	return first&0x18 != 0
}

// KeyPhase reports the key phase bit of a short header's first byte once
// header protection is removed.
func KeyPhase(first byte) bool { return first&0x04 != 0 }

// AppendShortHeader appends an unprotected short header: the spin and key
// phase bits, the Destination Connection ID and pn truncated to pnLen
// bytes.
func AppendShortHeader(b []byte, spin, keyPhase bool, dcid []byte, pn uint64, pnLen int) []byte {
	first := 0x40 | byte(pnLen-1)
	if spin {
		first |= 0x20
	}
	if keyPhase {
		first |= 0x04
	}
	b = append(b, first)
	b = append(b, dcid...)
	return AppendPacketNumber(b, pn, pnLen)
}

// NextPacket splits the first QUIC packet off a datagram (RFC 9000 section
// 12.2): a long header packet with a Length field ends where it says;
// anything else (short header, Retry, Version Negotiation, an unknown
// version) takes the rest of the datagram.
func NextPacket(datagram []byte) (packet, rest []byte, err error) {
	if len(datagram) == 0 {
		return nil, nil, errTruncated
	}
	if !IsLongHeader(datagram[0]) {
		return datagram, nil, nil
	}
	h, err := ParseLongHeader(datagram)
	if err != nil {
		return nil, nil, err
	}
	return datagram[:h.PacketLen], datagram[h.PacketLen:], nil
}

// VersionNegotiation is a parsed Version Negotiation packet (RFC 9000
// section 17.2.1), its slices views into the datagram.
type VersionNegotiation struct {
	DstConnID []byte
	SrcConnID []byte
	// Versions holds the supported versions, 4 bytes each; see Len and
	// Version.
	Versions []byte
}

// Len returns the number of versions listed.
func (v *VersionNegotiation) Len() int { return len(v.Versions) / 4 }

// Version returns the i-th version listed.
func (v *VersionNegotiation) Version(i int) uint32 {
	return binary.BigEndian.Uint32(v.Versions[4*i:])
}

// ParseVersionNegotiation parses a Version Negotiation packet: a long
// header with version 0 followed by a non-empty list of 32-bit versions.
// Connection IDs up to 255 bytes are accepted (RFC 8999).
func ParseVersionNegotiation(b []byte) (VersionNegotiation, error) {
	var v VersionNegotiation
	h, err := ParseLongHeader(b)
	if err != nil {
		return v, err
	}
	if h.Version != 0 {
		return v, errBadVersionN
	}
	p := 7 + len(h.DstConnID) + len(h.SrcConnID)
	rest := b[p:]
	if len(rest) == 0 || len(rest)%4 != 0 {
		return v, errBadVersionN
	}
	v.DstConnID, v.SrcConnID, v.Versions = h.DstConnID, h.SrcConnID, rest
	return v, nil
}

// AppendVersionNegotiation appends a Version Negotiation packet answering
// a client's packet: dcid and scid are the client's Source and Destination
// Connection IDs, swapped by the caller; unused supplies the first byte's
// seven arbitrary bits (RFC 9000 section 17.2.1 asks for random ones).
func AppendVersionNegotiation(b []byte, unused byte, dcid, scid []byte, versions ...uint32) []byte {
	b = append(b, 0x80|unused)
	b = append(b, 0, 0, 0, 0)
	b = append(b, byte(len(dcid)))
	b = append(b, dcid...)
	b = append(b, byte(len(scid)))
	b = append(b, scid...)
	for _, v := range versions {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}
