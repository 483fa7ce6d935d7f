package http2

// SettingID identifies a SETTINGS parameter (RFC 9113 section 6.5.2).
type SettingID uint16

// The settings of RFC 9113 section 6.5.2.
const (
	SettingHeaderTableSize      SettingID = 0x1
	SettingEnablePush           SettingID = 0x2
	SettingMaxConcurrentStreams SettingID = 0x3
	SettingInitialWindowSize    SettingID = 0x4
	SettingMaxFrameSize         SettingID = 0x5
	SettingMaxHeaderListSize    SettingID = 0x6
	// SettingEnableConnectProtocol is RFC 8441's: 1 lets the peer open
	// streams with an extended CONNECT (:protocol), as WebSocket does.
	SettingEnableConnectProtocol SettingID = 0x8
)

// Initial values of RFC 9113 section 6.5.2 and 6.9.2.
const (
	DefaultHeaderTableSize   = 4096
	DefaultInitialWindowSize = 65535
	MaxWindowSize            = 1<<31 - 1
)

// Settings are one endpoint's SETTINGS parameters. Unlimited values
// (SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_MAX_HEADER_LIST_SIZE) are
// math.MaxUint32 until the peer sets them.
type Settings struct {
	HeaderTableSize      uint32
	EnablePush           bool
	MaxConcurrentStreams uint32
	InitialWindowSize    uint32
	MaxFrameSize         uint32
	MaxHeaderListSize    uint32
	// EnableConnectProtocol: the peer accepts extended CONNECT (RFC 8441).
	EnableConnectProtocol bool
}

// DefaultSettings returns the values in force before a peer's first
// SETTINGS frame arrives.
func DefaultSettings() Settings {
	return Settings{
		HeaderTableSize:      DefaultHeaderTableSize,
		EnablePush:           true,
		MaxConcurrentStreams: 1<<32 - 1,
		InitialWindowSize:    DefaultInitialWindowSize,
		MaxFrameSize:         DefaultMaxFrameSize,
		MaxHeaderListSize:    1<<32 - 1,
	}
}

// Apply validates one received setting and records it. Out-of-range values
// are connection errors: SETTINGS_ENABLE_PUSH other than 0 or 1 and
// SETTINGS_MAX_FRAME_SIZE outside [2^14, 2^24-1] are PROTOCOL_ERROR,
// SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1 is FLOW_CONTROL_ERROR. Unknown
// settings are ignored (RFC 9113 section 6.5.2).
// SETTINGS_ENABLE_CONNECT_PROTOCOL other than 0 or 1, or back to 0 once 1,
// is PROTOCOL_ERROR (RFC 8441 section 3).
func (s *Settings) Apply(id SettingID, v uint32) error {
	switch id {
	case SettingHeaderTableSize:
		s.HeaderTableSize = v
	case SettingEnablePush:
		if v > 1 {
			return connErr(ErrCodeProtocol, "SETTINGS_ENABLE_PUSH is not 0 or 1")
		}
		s.EnablePush = v == 1
	case SettingMaxConcurrentStreams:
		s.MaxConcurrentStreams = v
	case SettingInitialWindowSize:
		if v > MaxWindowSize {
			return connErr(ErrCodeFlowControl, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1")
		}
		s.InitialWindowSize = v
	case SettingMaxFrameSize:
		if v < DefaultMaxFrameSize || v > MaxFrameSizeLimit {
			return connErr(ErrCodeProtocol, "SETTINGS_MAX_FRAME_SIZE out of range")
		}
		s.MaxFrameSize = v
	case SettingMaxHeaderListSize:
		s.MaxHeaderListSize = v
	case SettingEnableConnectProtocol:
		if v > 1 || v == 0 && s.EnableConnectProtocol {
			return connErr(ErrCodeProtocol, "SETTINGS_ENABLE_CONNECT_PROTOCOL is not 0 or 1, or was withdrawn")
		}
		s.EnableConnectProtocol = v == 1
	}
	return nil
}

// Setting is one parameter of a SETTINGS frame to write.
type Setting struct {
	ID    SettingID
	Value uint32
}

// AppendSettings appends a SETTINGS frame carrying the given parameters in
// order.
func AppendSettings(dst []byte, settings ...Setting) []byte {
	dst = appendFrameHeader(dst, 6*len(settings), FrameSettings, 0, 0)
	for _, s := range settings {
		dst = append(dst, byte(s.ID>>8), byte(s.ID))
		dst = appendUint32(dst, s.Value)
	}
	return dst
}
