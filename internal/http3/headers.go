package http3

// MalformedError reports a malformed request or response (RFC 9114
// section 4.1.2): a stream error of type H3_MESSAGE_ERROR. A server may
// answer it with a 4xx response before resetting the stream; a client
// must not accept the response.
type MalformedError struct{ Reason string }

// Error returns "http3: malformed message: reason".
func (e MalformedError) Error() string { return "http3: malformed message: " + e.Reason }

func malformed(reason string) error { return MalformedError{Reason: reason} }

// RequestHead is a request's header section checked by CheckRequest. Its
// byte slices view the fields checked.
type RequestHead struct {
	Method, Scheme, Authority, Path []byte
	// Protocol is :protocol, set only by an extended CONNECT (RFC 9220).
	Protocol []byte
	// Fields are the regular fields in order: the fields checked, past
	// the pseudo-header fields.
	Fields []Field
	// ContentLength is the content-length field's value, -1 when absent.
	ContentLength int64
}

// ResponseHead is a response's header section checked by CheckResponse.
type ResponseHead struct {
	Status int
	// Fields are the regular fields in order, past :status.
	Fields []Field
	// ContentLength is the content-length field's value, -1 when absent.
	ContentLength int64
}

// CheckRequest checks a decoded request header section as RFC 9114
// sections 4.2 and 4.3.1 ask, the rules internal/http2 applies to HTTP/2
// requests: pseudo-header fields first, each known and at most once and not
// empty; :method, :scheme and :path present except in a CONNECT, which has
// :authority and neither of the others; :protocol only when
// extendedConnect (our SETTINGS_ENABLE_CONNECT_PROTOCOL), and then with a
// CONNECT and all four; an authority for http and https, :authority and
// host agreeing when both are there; regular names lowercase and valid, no
// connection-specific field, te only "trailers", values without NUL, CR or
// LF, content-length digits and consistent. A failure is a MalformedError.
// It does not allocate on success.
func CheckRequest(fields []Field, h *RequestHead, extendedConnect bool) error {
	*h = RequestHead{ContentLength: -1}
	i := 0
	for ; i < len(fields) && isPseudo(fields[i].Name); i++ {
		f := &fields[i]
		var dst *[]byte
		switch string(f.Name) {
		case ":method":
			dst = &h.Method
		case ":scheme":
			dst = &h.Scheme
		case ":authority":
			dst = &h.Authority
		case ":path":
			dst = &h.Path
		case ":protocol":
			if !extendedConnect {
				return malformed(":protocol without extended CONNECT enabled")
			}
			dst = &h.Protocol
		default:
			return malformed("unknown request pseudo-header field")
		}
		if *dst != nil {
			return malformed("pseudo-header field repeated")
		}
		if len(f.Value) == 0 || !validFieldValue(f.Value) {
			return malformed("pseudo-header field empty or invalid")
		}
		*dst = f.Value
	}
	h.Fields = fields[i:]
	var host []byte
	for j := range h.Fields {
		f := &h.Fields[j]
		if err := checkRegular(f, &h.ContentLength); err != nil {
			return err
		}
		if string(f.Name) == "te" && string(f.Value) != "trailers" {
			return malformed("te other than trailers")
		}
		if string(f.Name) == "host" {
			host = f.Value
		}
	}
	connect := string(h.Method) == "CONNECT"
	switch {
	case h.Protocol != nil:
		if !connect || h.Scheme == nil || h.Path == nil || h.Authority == nil {
			return malformed("extended CONNECT without :method CONNECT, :scheme, :path and :authority")
		}
	case connect:
		if h.Authority == nil || h.Scheme != nil || h.Path != nil {
			return malformed("CONNECT without :authority, or with :scheme or :path")
		}
		return nil
	case h.Method == nil || h.Scheme == nil || h.Path == nil:
		return malformed("request without :method, :scheme or :path")
	}
	if s := string(h.Scheme); s == "http" || s == "https" {
		if h.Authority == nil && len(host) == 0 {
			return malformed("http or https request without an authority")
		}
		if h.Authority != nil && host != nil && string(host) != string(h.Authority) {
			return malformed(":authority and host differ")
		}
	}
	return nil
}

// CheckResponse checks a decoded response header section (RFC 9114
// sections 4.2 and 4.3.2): one :status of three digits, 100 to 599, before
// any regular field and no other pseudo-header field, and the regular
// fields as CheckRequest checks them. A failure is a MalformedError. It
// does not allocate on success.
func CheckResponse(fields []Field, h *ResponseHead) error {
	*h = ResponseHead{ContentLength: -1}
	i := 0
	for ; i < len(fields) && isPseudo(fields[i].Name); i++ {
		f := &fields[i]
		if string(f.Name) != ":status" {
			return malformed("unknown response pseudo-header field")
		}
		if h.Status != 0 {
			return malformed(":status repeated")
		}
		v := f.Value
		if len(v) != 3 || !isDigit(v[0]) || !isDigit(v[1]) || !isDigit(v[2]) {
			return malformed(":status is not three digits")
		}
		h.Status = int(v[0]-'0')*100 + int(v[1]-'0')*10 + int(v[2]-'0')
		if h.Status < 100 || h.Status > 599 {
			return malformed(":status out of range")
		}
	}
	if h.Status == 0 {
		return malformed("response without :status")
	}
	h.Fields = fields[i:]
	for j := range h.Fields {
		if err := checkRegular(&h.Fields[j], &h.ContentLength); err != nil {
			return err
		}
	}
	return nil
}

// CheckTrailers checks a decoded trailer section: no pseudo-header field
// (RFC 9114 section 4.3), and regular fields as CheckRequest checks them.
// A failure is a MalformedError.
func CheckTrailers(fields []Field) error {
	cl := int64(-1)
	for j := range fields {
		if isPseudo(fields[j].Name) {
			return malformed("pseudo-header field in trailers")
		}
		if err := checkRegular(&fields[j], &cl); err != nil {
			return err
		}
	}
	return nil
}

func isPseudo(name []byte) bool { return len(name) > 0 && name[0] == ':' }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// checkRegular checks one regular field and records content-length.
func checkRegular(f *Field, contentLength *int64) error {
	if isPseudo(f.Name) {
		return malformed("pseudo-header field after a regular field")
	}
	if !ValidFieldName(f.Name) {
		return malformed("invalid or connection-specific field name")
	}
	if !validFieldValue(f.Value) {
		return malformed("field value with NUL, CR or LF")
	}
	if string(f.Name) == "content-length" {
		n, ok := parseContentLength(f.Value)
		if !ok || *contentLength >= 0 && *contentLength != n {
			return malformed("invalid or inconsistent content-length")
		}
		*contentLength = n
	}
	return nil
}

// ValidFieldName reports whether name may be sent as a regular field in
// HTTP/3: not empty, no uppercase letter, no control character, space or
// DEL (RFC 9114 section 4.2), and not one of the connection-specific
// fields HTTP/3 forbids (connection, keep-alive, proxy-connection,
// transfer-encoding, upgrade). te is allowed here; CheckRequest checks its
// value.
func ValidFieldName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, b := range name {
		if b >= 'A' && b <= 'Z' || b <= ' ' || b >= 0x7f {
			return false
		}
	}
	switch string(name) {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
		return false
	}
	return true
}

// validFieldValue refuses the characters no field value may hold: NUL, CR
// and LF (RFC 9110 section 5.5).
func validFieldValue(v []byte) bool {
	for _, b := range v {
		if b == 0 || b == '\r' || b == '\n' {
			return false
		}
	}
	return true
}

// parseContentLength parses a content-length value: digits only, at most
// 18 of them so it cannot overflow.
func parseContentLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, b := range v {
		if !isDigit(b) {
			return 0, false
		}
		n = n*10 + int64(b-'0')
	}
	return n, true
}
