package websocket

import (
	"bytes"
	"errors"
	"strconv"
)

// DeflateParams are the negotiated permessage-deflate parameters (RFC 7692
// section 7.1), named from the protocol's point of view, not this side's: a
// server compresses under the Server fields and inflates under the Client
// ones, a client the other way round. A window size of 0 means 15 bits (32
// KiB), the most a peer may use.
//
// Memory per connection (measured by TestIdleMemory, 1000 idle server
// Conns): without context takeover on either side, nothing between
// messages (compressors and decompressors come from pools). When the peer
// keeps its context, this side keeps the peer's window: 2^bits bytes (32
// KiB at 15 bits). When this side keeps its context, it owns a compressor:
// about 830 KiB with klauspost/compress at level 1, about 1 MiB with a
// window below 15 bits. NegotiateDeflate with allowContextTakeover false
// avoids both.
type DeflateParams struct {
	ServerNoContextTakeover, ClientNoContextTakeover bool
	ServerMaxWindowBits, ClientMaxWindowBits         int
}

const deflateName = "permessage-deflate"

// deflateOffer is one parsed permessage-deflate element; clientBits is -1
// for a client_max_window_bits without a value.
type deflateOffer struct {
	serverNoCtx, clientNoCtx bool
	serverBits, clientBits   int
}

// NegotiateDeflate is a server's side of RFC 7692 section 5: it reads the
// client's Sec-WebSocket-Extensions value (one or several offers, comma
// separated, each with parameters; the header's lines joined with ", ") and
// accepts the first permessage-deflate offer whose parameters are all known,
// given once and valid. It returns the parameters in force and the value of
// the Sec-WebSocket-Extensions response header; ok is false when no offer is
// acceptable, and the connection then goes on without compression.
//
// What it answers to an accepted offer:
//   - server_no_context_takeover, if offered, is accepted (echoed);
//   - client_no_context_takeover, if offered, is echoed, which makes the hint
//     binding and spares the server a history window;
//   - server_max_window_bits=N (8-15) is accepted and echoed; this side then
//     compresses within a 2^N-byte window;
//   - client_max_window_bits=N is echoed, binding the client to the window
//     it proposed and bounding the history the server keeps; without a value
//     it is left out of the response (the client may use 15 bits);
//   - with allowContextTakeover false both no_context_takeover parameters are
//     sent whatever the offer said (RFC 7692 sections 7.1.1.1 and 7.1.1.2
//     allow it), so the connection holds no compression state between
//     messages and takes compressors from pools: the cheapest setting for
//     many connections.
func NegotiateDeflate(offer []byte, allowContextTakeover bool) (p DeflateParams, response []byte, ok bool) {
	for len(offer) > 0 {
		var ext []byte
		ext, offer = cutList(offer)
		o, err := parseDeflate(ext)
		if err != nil {
			continue
		}
		p = DeflateParams{
			ServerNoContextTakeover: o.serverNoCtx || !allowContextTakeover,
			ClientNoContextTakeover: o.clientNoCtx || !allowContextTakeover,
			ServerMaxWindowBits:     o.serverBits,
		}
		if o.clientBits > 0 {
			p.ClientMaxWindowBits = o.clientBits
		}
		response = appendDeflateParams(make([]byte, 0, 128), p, false)
		return p, response, true
	}
	return DeflateParams{}, nil, false
}

// AppendDeflateOffer appends a client's permessage-deflate offer for p to
// dst, for Sec-WebSocket-Extensions. It always offers
// client_max_window_bits (with p's value when set), telling the server this
// client can compress within whatever window it asks for.
func AppendDeflateOffer(dst []byte, p DeflateParams) []byte {
	return appendDeflateParams(dst, p, true)
}

func appendDeflateParams(dst []byte, p DeflateParams, offer bool) []byte {
	dst = append(dst, deflateName...)
	if p.ServerNoContextTakeover {
		dst = append(dst, "; server_no_context_takeover"...)
	}
	if p.ClientNoContextTakeover {
		dst = append(dst, "; client_no_context_takeover"...)
	}
	if p.ServerMaxWindowBits != 0 {
		dst = append(dst, "; server_max_window_bits="...)
		dst = strconv.AppendInt(dst, int64(p.ServerMaxWindowBits), 10)
	}
	if p.ClientMaxWindowBits != 0 {
		dst = append(dst, "; client_max_window_bits="...)
		dst = strconv.AppendInt(dst, int64(p.ClientMaxWindowBits), 10)
	} else if offer {
		dst = append(dst, "; client_max_window_bits"...)
	}
	return dst
}

// ParseDeflateResponse is a client's reading of the server's
// Sec-WebSocket-Extensions value: it must be a single permessage-deflate
// element with known, valid, non-repeated parameters, and
// client_max_window_bits must carry a value. Use DeflateParams.Accepts to
// check it against the offer sent.
func ParseDeflateResponse(value []byte) (DeflateParams, error) {
	ext, rest := cutList(value)
	if len(bytes.TrimSpace(rest)) > 0 {
		return DeflateParams{}, errors.New("websocket: server accepted more than one extension")
	}
	o, err := parseDeflate(ext)
	if err != nil {
		return DeflateParams{}, err
	}
	if o.clientBits < 0 {
		return DeflateParams{}, errors.New("websocket: client_max_window_bits without a value in a response")
	}
	return DeflateParams{ServerNoContextTakeover: o.serverNoCtx, ClientNoContextTakeover: o.clientNoCtx,
		ServerMaxWindowBits: o.serverBits, ClientMaxWindowBits: o.clientBits}, nil
}

// Accepts reports whether resp, the parameters of a server's response, are
// allowed for a client that offered p: no server window larger than the one
// it asked for, and a client window only as small as the one it allowed
// (AppendDeflateOffer always allows one).
func (p DeflateParams) Accepts(resp DeflateParams) bool {
	if p.ServerNoContextTakeover && !resp.ServerNoContextTakeover {
		return false
	}
	if p.ServerMaxWindowBits != 0 && (resp.ServerMaxWindowBits == 0 || resp.ServerMaxWindowBits > p.ServerMaxWindowBits) {
		return false
	}
	if p.ClientMaxWindowBits != 0 && resp.ClientMaxWindowBits > p.ClientMaxWindowBits {
		return false
	}
	return true
}

var errBadExtension = errors.New("websocket: not a valid permessage-deflate element")

// parseDeflate parses one extension element: permessage-deflate followed by
// ";"-separated parameters.
func parseDeflate(ext []byte) (deflateOffer, error) {
	var o deflateOffer
	name, params, _ := bytes.Cut(ext, []byte{';'})
	if !bytes.EqualFold(bytes.TrimSpace(name), []byte(deflateName)) {
		return o, errBadExtension
	}
	seen := 0
	for len(params) > 0 {
		var param []byte
		param, params, _ = bytes.Cut(params, []byte{';'})
		key, val, hasVal := bytes.Cut(param, []byte{'='})
		key, val = bytes.TrimSpace(key), bytes.TrimSpace(val)
		if hasVal && len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = val[1 : len(val)-1] // a quoted-string whose content must be a token
		}
		var bit int
		switch string(key) {
		case "server_no_context_takeover":
			bit = 1
			o.serverNoCtx = true
		case "client_no_context_takeover":
			bit = 2
			o.clientNoCtx = true
		case "server_max_window_bits":
			bit = 4
			if o.serverBits = windowBits(val); o.serverBits == 0 {
				return o, errBadExtension
			}
		case "client_max_window_bits":
			bit = 8
			o.clientBits = -1
			if hasVal {
				if o.clientBits = windowBits(val); o.clientBits == 0 {
					return o, errBadExtension
				}
			}
		default:
			return o, errBadExtension
		}
		if seen&bit != 0 || (hasVal && bit < 4) {
			return o, errBadExtension
		}
		seen |= bit
	}
	return o, nil
}

// windowBits parses a window size, 8 to 15 without leading zeroes; 0 when
// invalid.
func windowBits(v []byte) int {
	switch {
	case len(v) == 1 && v[0] >= '8' && v[0] <= '9':
		return int(v[0] - '0')
	case len(v) == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5':
		return 10 + int(v[1]-'0')
	}
	return 0
}

// cutList cuts the first element off a comma-separated list, honouring
// quoted strings.
func cutList(s []byte) (elem, rest []byte) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && quoted:
			i++ // an escaped byte cannot end the quote
		case c == ',' && !quoted:
			return s[:i], s[i+1:]
		}
	}
	return s, nil
}
