package quic

import (
	"net/netip"
)

// The transport parameter IDs of RFC 9000 section 18.2.
const (
	paramOriginalDstConnID       = 0x00
	paramMaxIdleTimeout          = 0x01
	paramStatelessResetToken     = 0x02
	paramMaxUDPPayloadSize       = 0x03
	paramInitialMaxData          = 0x04
	paramInitialMaxStreamDataBL  = 0x05
	paramInitialMaxStreamDataBR  = 0x06
	paramInitialMaxStreamDataUni = 0x07
	paramInitialMaxStreamsBidi   = 0x08
	paramInitialMaxStreamsUni    = 0x09
	paramAckDelayExponent        = 0x0a
	paramMaxAckDelay             = 0x0b
	paramDisableActiveMigration  = 0x0c
	paramPreferredAddress        = 0x0d
	paramActiveConnIDLimit       = 0x0e
	paramInitialSrcConnID        = 0x0f
	paramRetrySrcConnID          = 0x10
)

// The transport parameters' bounds (RFC 9000 section 18.2).
const (
	minUDPPayloadSize       = 1200
	maxUDPPayload           = 65527 // the largest max_udp_payload_size (RFC 9000 section 18.2)
	maxAckDelayExponent     = 20
	maxMaxAckDelay          = 1 << 14
	minActiveConnIDLimit    = 2
	preferredAddressMinSize = 4 + 2 + 16 + 2 + 1 + resetTokenLen
)

var (
	errParamDuplicate  = paramError("duplicate transport parameter")
	errParamTruncated  = paramError("transport parameter truncated")
	errParamServerOnly = paramError("server-only transport parameter from a client")
	errParamValue      = paramError("transport parameter out of range")
	errParamLength     = paramError("transport parameter of the wrong length")
)

func paramError(reason string) *TransportError {
	return &TransportError{Code: TransportParameterError, Reason: reason}
}

// PreferredAddress is the server's preferred_address transport parameter
// (RFC 9000 section 18.2): an address to migrate to, with the connection
// ID and stateless reset token to use there (views into the parameters).
type PreferredAddress struct {
	IPv4       netip.AddrPort
	IPv6       netip.AddrPort
	ConnID     []byte
	ResetToken []byte
}

// TransportParameters are an endpoint's QUIC transport parameters (RFC
// 9000 section 18), exchanged in the TLS handshake (crypto/tls's
// QUICConn.SetTransportParameters, and its QUICTransportParameters
// event). The byte slices are views into the parsed bytes; nil means
// absent, an empty non-nil slice a zero-length value. Durations are in
// milliseconds, as on the wire.
type TransportParameters struct {
	OriginalDstConnID   []byte // server only
	MaxIdleTimeout      uint64 // milliseconds; 0: none
	StatelessResetToken []byte // server only; 16 bytes
	MaxUDPPayloadSize   uint64
	InitialMaxData      uint64
	// The initial stream windows: bidirectional streams the sender
	// opens (BidiLocal), the peer opens (BidiRemote), unidirectional.
	InitialMaxStreamDataBidiLocal  uint64
	InitialMaxStreamDataBidiRemote uint64
	InitialMaxStreamDataUni        uint64
	InitialMaxStreamsBidi          uint64
	InitialMaxStreamsUni           uint64
	AckDelayExponent               uint64
	MaxAckDelay                    uint64 // milliseconds
	DisableActiveMigration         bool
	HasPreferredAddress            bool // server only
	PreferredAddress               PreferredAddress
	ActiveConnIDLimit              uint64
	InitialSrcConnID               []byte
	RetrySrcConnID                 []byte // server only
}

// DefaultTransportParameters returns the values an absent parameter
// takes (RFC 9000 section 18.2): all zero but max_udp_payload_size 65527,
// ack_delay_exponent 3, max_ack_delay 25 ms and active_connection_id_limit
// 2.
func DefaultTransportParameters() TransportParameters {
	return TransportParameters{
		MaxUDPPayloadSize: 65527,
		AckDelayExponent:  3,
		MaxAckDelay:       25,
		ActiveConnIDLimit: 2,
	}
}

// ParseTransportParameters parses the transport parameters an endpoint
// received; fromServer says which side sent them, a client being barred
// from the server-only ones. Absent parameters take their defaults,
// unknown ones (such as the reserved 31*N+27) are skipped. A violation is
// a *TransportError with code TRANSPORT_PARAMETER_ERROR.
func ParseTransportParameters(b []byte, fromServer bool) (TransportParameters, error) {
	p := DefaultTransportParameters()
	var seen uint32
	for len(b) > 0 {
		id, n, err := ParseVarint(b)
		if err != nil {
			return p, errParamTruncated
		}
		b = b[n:]
		length, n, err := ParseVarint(b)
		if err != nil || length > uint64(len(b)-n) {
			return p, errParamTruncated
		}
		val := b[n : n+int(length)]
		b = b[n+int(length):]
		if id > paramRetrySrcConnID {
			continue
		}
		if seen&(1<<id) != 0 {
			return p, errParamDuplicate
		}
		seen |= 1 << id
		if !fromServer && (id == paramOriginalDstConnID || id == paramStatelessResetToken ||
			id == paramPreferredAddress || id == paramRetrySrcConnID) {
			return p, errParamServerOnly
		}
		if err := p.set(id, val); err != nil {
			return p, err
		}
	}
	return p, nil
}

// set stores the parameter id's value val, checking it.
func (p *TransportParameters) set(id uint64, val []byte) error {
	switch id {
	case paramOriginalDstConnID, paramInitialSrcConnID, paramRetrySrcConnID:
		if len(val) > MaxConnIDLen {
			return errParamLength
		}
		*p.connIDParam(id) = val
		return nil
	case paramStatelessResetToken:
		if len(val) != resetTokenLen {
			return errParamLength
		}
		p.StatelessResetToken = val
		return nil
	case paramDisableActiveMigration:
		if len(val) != 0 {
			return errParamLength
		}
		p.DisableActiveMigration = true
		return nil
	case paramPreferredAddress:
		return p.setPreferredAddress(val)
	}
	v, n, err := ParseVarint(val)
	if err != nil || n != len(val) {
		return errParamLength
	}
	switch id {
	case paramMaxIdleTimeout:
		p.MaxIdleTimeout = v
	case paramMaxUDPPayloadSize:
		p.MaxUDPPayloadSize = v
		if v < minUDPPayloadSize {
			return errParamValue
		}
	case paramInitialMaxData:
		p.InitialMaxData = v
	case paramInitialMaxStreamDataBL:
		p.InitialMaxStreamDataBidiLocal = v
	case paramInitialMaxStreamDataBR:
		p.InitialMaxStreamDataBidiRemote = v
	case paramInitialMaxStreamDataUni:
		p.InitialMaxStreamDataUni = v
	case paramInitialMaxStreamsBidi, paramInitialMaxStreamsUni:
		if v > maxStreams {
			return errParamValue
		}
		if id == paramInitialMaxStreamsBidi {
			p.InitialMaxStreamsBidi = v
		} else {
			p.InitialMaxStreamsUni = v
		}
	case paramAckDelayExponent:
		p.AckDelayExponent = v
		if v > maxAckDelayExponent {
			return errParamValue
		}
	case paramMaxAckDelay:
		p.MaxAckDelay = v
		if v >= maxMaxAckDelay {
			return errParamValue
		}
	case paramActiveConnIDLimit:
		p.ActiveConnIDLimit = v
		if v < minActiveConnIDLimit {
			return errParamValue
		}
	}
	return nil
}

// connIDParam returns the field of a connection ID parameter.
func (p *TransportParameters) connIDParam(id uint64) *[]byte {
	switch id {
	case paramOriginalDstConnID:
		return &p.OriginalDstConnID
	case paramInitialSrcConnID:
		return &p.InitialSrcConnID
	}
	return &p.RetrySrcConnID
}

// setPreferredAddress parses the preferred_address value: IPv4 address
// and port, IPv6 address and port, a non-empty connection ID and a
// stateless reset token.
func (p *TransportParameters) setPreferredAddress(val []byte) error {
	if len(val) < preferredAddressMinSize {
		return errParamLength
	}
	cidLen := int(val[24])
	if cidLen == 0 || cidLen > MaxConnIDLen || len(val) != preferredAddressMinSize+cidLen {
		return errParamLength
	}
	port := func(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }
	p.HasPreferredAddress = true
	p.PreferredAddress = PreferredAddress{
		IPv4:       netip.AddrPortFrom(netip.AddrFrom4([4]byte(val[0:4])), port(val[4:6])),
		IPv6:       netip.AddrPortFrom(netip.AddrFrom16([16]byte(val[6:22])), port(val[22:24])),
		ConnID:     val[25 : 25+cidLen],
		ResetToken: val[25+cidLen:],
	}
	return nil
}

// AppendTransportParameters appends p's parameters in their wire form:
// each integer that differs from its default, each byte string that is
// not nil, the flag and the preferred address when set (an address that
// is not of its family is written as zeros, meaning none). It writes the
// server-only ones too if set: a client leaves them nil.
func AppendTransportParameters(b []byte, p *TransportParameters) []byte {
	d := DefaultTransportParameters()
	bytesParam := func(b []byte, id uint64, v []byte) []byte {
		if v == nil {
			return b
		}
		b = AppendVarint(b, id)
		return appendWithLength(b, v)
	}
	intParam := func(b []byte, id, v, def uint64) []byte {
		if v == def {
			return b
		}
		b = AppendVarint(b, id)
		b = AppendVarint(b, uint64(VarintLen(v)))
		return AppendVarint(b, v)
	}
	b = bytesParam(b, paramOriginalDstConnID, p.OriginalDstConnID)
	b = intParam(b, paramMaxIdleTimeout, p.MaxIdleTimeout, 0)
	b = bytesParam(b, paramStatelessResetToken, p.StatelessResetToken)
	b = intParam(b, paramMaxUDPPayloadSize, p.MaxUDPPayloadSize, d.MaxUDPPayloadSize)
	b = intParam(b, paramInitialMaxData, p.InitialMaxData, 0)
	b = intParam(b, paramInitialMaxStreamDataBL, p.InitialMaxStreamDataBidiLocal, 0)
	b = intParam(b, paramInitialMaxStreamDataBR, p.InitialMaxStreamDataBidiRemote, 0)
	b = intParam(b, paramInitialMaxStreamDataUni, p.InitialMaxStreamDataUni, 0)
	b = intParam(b, paramInitialMaxStreamsBidi, p.InitialMaxStreamsBidi, 0)
	b = intParam(b, paramInitialMaxStreamsUni, p.InitialMaxStreamsUni, 0)
	b = intParam(b, paramAckDelayExponent, p.AckDelayExponent, d.AckDelayExponent)
	b = intParam(b, paramMaxAckDelay, p.MaxAckDelay, d.MaxAckDelay)
	if p.DisableActiveMigration {
		b = append(b, paramDisableActiveMigration, 0)
	}
	if p.HasPreferredAddress {
		a := &p.PreferredAddress
		b = AppendVarint(b, paramPreferredAddress)
		b = AppendVarint(b, uint64(preferredAddressMinSize+len(a.ConnID)))
		var v4 [4]byte
		var v6 [16]byte
		if a.IPv4.Addr().Is4() {
			v4 = a.IPv4.Addr().As4()
		}
		if a.IPv6.Addr().IsValid() {
			v6 = a.IPv6.Addr().As16()
		}
		b = append(b, v4[:]...)
		b = append(b, byte(a.IPv4.Port()>>8), byte(a.IPv4.Port()))
		b = append(b, v6[:]...)
		b = append(b, byte(a.IPv6.Port()>>8), byte(a.IPv6.Port()))
		b = append(b, byte(len(a.ConnID)))
		b = append(b, a.ConnID...)
		b = append(b, a.ResetToken...)
	}
	b = intParam(b, paramActiveConnIDLimit, p.ActiveConnIDLimit, d.ActiveConnIDLimit)
	b = bytesParam(b, paramInitialSrcConnID, p.InitialSrcConnID)
	return bytesParam(b, paramRetrySrcConnID, p.RetrySrcConnID)
}
