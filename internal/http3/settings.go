package http3

import "github.com/gust-http/gust/internal/quic"

// SettingID identifies a SETTINGS parameter (RFC 9114 section 7.2.4.1).
type SettingID uint64

// The settings this package knows: RFC 9114's, RFC 9204's (QPACK), RFC
// 9220's (extended CONNECT) and RFC 9297's (HTTP datagrams).
const (
	SettingQPACKMaxTableCapacity SettingID = 0x01
	SettingMaxFieldSectionSize   SettingID = 0x06
	SettingQPACKBlockedStreams   SettingID = 0x07
	SettingEnableConnectProtocol SettingID = 0x08
	SettingH3Datagram            SettingID = 0x33
)

// The HTTP/2 settings HTTP/3 reserves (RFC 9114 section 7.2.4.1), and the
// default of SETTINGS_MAX_FIELD_SECTION_SIZE, unlimited.
const (
	settingHTTP2ReservedFirst SettingID = 0x02
	settingHTTP2ReservedLast  SettingID = 0x05
	unlimitedFieldSectionSize           = 1<<62 - 1
)

// Settings are one endpoint's SETTINGS parameters. The zero value is not
// the protocol's default: use DefaultSettings.
type Settings struct {
	// QPACKMaxTableCapacity is the dynamic table capacity the sender's
	// QPACK decoder allows. Default 0.
	QPACKMaxTableCapacity uint64
	// MaxFieldSectionSize is the largest field section the sender accepts,
	// counted as RFC 9114 section 4.2.2 does. Default unlimited (2^62-1).
	MaxFieldSectionSize uint64
	// QPACKBlockedStreams is how many streams may block on the sender's
	// QPACK decoder. Default 0.
	QPACKBlockedStreams uint64
	// EnableConnectProtocol: the sender accepts extended CONNECT (RFC 9220).
	EnableConnectProtocol bool
	// H3Datagram: the sender accepts HTTP datagrams (RFC 9297).
	H3Datagram bool
}

// DefaultSettings returns the values in force until the peer's SETTINGS
// frame arrives (RFC 9114 section 7.2.4.2).
func DefaultSettings() Settings {
	return Settings{MaxFieldSectionSize: unlimitedFieldSectionSize}
}

// AppendSettings appends a SETTINGS frame announcing every value of s that
// differs from the default, plus one reserved setting as RFC 9114 section
// 7.2.4.1 asks, so peers that choke on unknown settings are found early.
func AppendSettings(b []byte, s Settings) []byte {
	var tmp [96]byte
	p := tmp[:0]
	if s.QPACKMaxTableCapacity != 0 {
		p = appendSetting(p, SettingQPACKMaxTableCapacity, s.QPACKMaxTableCapacity)
	}
	if s.MaxFieldSectionSize != unlimitedFieldSectionSize {
		p = appendSetting(p, SettingMaxFieldSectionSize, s.MaxFieldSectionSize)
	}
	if s.QPACKBlockedStreams != 0 {
		p = appendSetting(p, SettingQPACKBlockedStreams, s.QPACKBlockedStreams)
	}
	if s.EnableConnectProtocol {
		p = appendSetting(p, SettingEnableConnectProtocol, 1)
	}
	if s.H3Datagram {
		p = appendSetting(p, SettingH3Datagram, 1)
	}
	p = appendSetting(p, 0x1f*3+0x21, 0) // a reserved identifier, ignored by the peer
	return append(AppendFrameHeader(b, FrameSettings, uint64(len(p))), p...)
}

func appendSetting(b []byte, id SettingID, v uint64) []byte {
	return quic.AppendVarint(quic.AppendVarint(b, uint64(id)), v)
}

// ParseSettings reads a SETTINGS frame's payload into s, which should start
// as DefaultSettings. It returns H3_FRAME_ERROR for a truncated payload and
// H3_SETTINGS_ERROR for an identifier given twice, one of the HTTP/2
// identifiers HTTP/3 reserves (0x02 to 0x05), or a boolean setting other
// than 0 or 1. Unknown identifiers are ignored. It does not allocate.
func ParseSettings(payload []byte, s *Settings) error {
	// Duplicates among the known identifiers are tracked exactly; an
	// unknown one repeated is ignored like any unknown one.
	var seen uint64
	for len(payload) > 0 {
		id, n := parseVarint(payload)
		if n == 0 {
			return connErr(ErrCodeFrame, "SETTINGS truncated inside an identifier")
		}
		v, m := parseVarint(payload[n:])
		if m == 0 {
			return connErr(ErrCodeFrame, "SETTINGS truncated inside a value")
		}
		payload = payload[n+m:]
		sid := SettingID(id)
		if sid >= settingHTTP2ReservedFirst && sid <= settingHTTP2ReservedLast {
			return connErr(ErrCodeSettings, "SETTINGS carries an HTTP/2 setting")
		}
		bit := settingBit(sid)
		if bit == 0 {
			continue
		}
		if seen&bit != 0 {
			return connErr(ErrCodeSettings, "SETTINGS repeats an identifier")
		}
		seen |= bit
		switch sid {
		case SettingQPACKMaxTableCapacity:
			s.QPACKMaxTableCapacity = v
		case SettingMaxFieldSectionSize:
			s.MaxFieldSectionSize = v
		case SettingQPACKBlockedStreams:
			s.QPACKBlockedStreams = v
		case SettingEnableConnectProtocol, SettingH3Datagram:
			if v > 1 {
				return connErr(ErrCodeSettings, "SETTINGS boolean is not 0 or 1")
			}
			if sid == SettingEnableConnectProtocol {
				s.EnableConnectProtocol = v == 1
			} else {
				s.H3Datagram = v == 1
			}
		}
	}
	return nil
}

// settingBit gives each known identifier a bit for duplicate detection, 0
// for identifiers this package ignores.
func settingBit(id SettingID) uint64 {
	switch id {
	case SettingQPACKMaxTableCapacity:
		return 1
	case SettingMaxFieldSectionSize:
		return 2
	case SettingQPACKBlockedStreams:
		return 4
	case SettingEnableConnectProtocol:
		return 8
	case SettingH3Datagram:
		return 16
	}
	return 0
}
