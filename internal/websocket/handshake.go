package websocket

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"strings"
)

// keyGUID is appended to Sec-WebSocket-Key before hashing (RFC 6455 section
// 1.3).
const keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// AcceptKey appends the Sec-WebSocket-Accept value for key to dst:
// base64(SHA-1(key + GUID)). It does not allocate when dst has room for the
// 28 bytes and key is at most 92 bytes (a valid key is 24).
func AcceptKey(dst, key []byte) []byte {
	var buf [128]byte
	var sum [sha1.Size]byte
	if len(key)+len(keyGUID) <= len(buf) {
		n := copy(buf[:], key)
		n += copy(buf[n:], keyGUID)
		sum = sha1.Sum(buf[:n])
	} else {
		h := sha1.New()
		h.Write(key)
		h.Write([]byte(keyGUID))
		h.Sum(sum[:0])
	}
	return base64.StdEncoding.AppendEncode(dst, sum[:])
}

// ValidKey reports whether key is a valid Sec-WebSocket-Key: the base64 of
// exactly 16 bytes (24 characters with padding).
func ValidKey(key []byte) bool {
	if len(key) != 24 {
		return false
	}
	var buf [18]byte
	n, err := base64.StdEncoding.Decode(buf[:], key)
	return err == nil && n == 16
}

// NewKey appends a fresh Sec-WebSocket-Key, 16 random bytes in base64, to
// dst.
func NewKey(dst []byte) []byte {
	var b [16]byte
	rand.Read(b[:])
	return base64.StdEncoding.AppendEncode(dst, b[:])
}

// ErrHeaderValue says a value given to AppendClientHandshake holds a byte a
// header line may not (CR, LF, NUL) or a path is not a request target.
var ErrHeaderValue = errors.New("websocket: invalid character in a handshake value")

// AppendClientHandshake appends a client's opening handshake (RFC 6455
// section 4.1) to dst: GET path with Host, Upgrade, Connection,
// Sec-WebSocket-Key, Sec-WebSocket-Version 13, and when given,
// Sec-WebSocket-Protocol (protocols joined by ", ") and
// Sec-WebSocket-Extensions (extOffer, e.g. from AppendDeflateOffer). path
// must start with "/" and hold no space. Headers the caller wants to add
// (Origin, cookies) go before the final CRLF: cut it off and append them.
func AppendClientHandshake(dst []byte, host, path string, key []byte, protocols []string, extOffer []byte) ([]byte, error) {
	if path == "" {
		path = "/"
	}
	if path[0] != '/' || strings.ContainsAny(path, " \r\n\x00") || strings.ContainsAny(host, " \r\n\x00") ||
		bytes.ContainsAny(key, "\r\n\x00") || bytes.ContainsAny(extOffer, "\r\n\x00") {
		return dst, ErrHeaderValue
	}
	for _, p := range protocols {
		if p == "" || strings.ContainsAny(p, " ,\r\n\x00") {
			return dst, ErrHeaderValue
		}
	}
	dst = append(dst, "GET "...)
	dst = append(dst, path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "...)
	dst = append(dst, key...)
	dst = append(dst, "\r\nSec-WebSocket-Version: 13\r\n"...)
	if len(protocols) > 0 {
		dst = append(dst, "Sec-WebSocket-Protocol: "...)
		for i, p := range protocols {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, p...)
		}
		dst = append(dst, "\r\n"...)
	}
	if len(extOffer) > 0 {
		dst = append(dst, "Sec-WebSocket-Extensions: "...)
		dst = append(dst, extOffer...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...), nil
}

// CheckServerResponse checks a server's answer to the opening handshake
// (RFC 6455 section 4.1, the client's steps 1-4): status 101, an Upgrade
// header naming websocket, a Connection header with the upgrade token, and
// Sec-WebSocket-Accept matching key. Extensions and subprotocol are the
// caller's to check (ParseDeflateResponse for permessage-deflate).
func CheckServerResponse(status int, upgrade, connection, accept, key []byte) error {
	if status != 101 {
		return errors.New("websocket: handshake: server answered without 101 Switching Protocols")
	}
	if !HasToken(upgrade, "websocket") {
		return errors.New("websocket: handshake: Upgrade header does not name websocket")
	}
	if !HasToken(connection, "upgrade") {
		return errors.New("websocket: handshake: Connection header lacks upgrade")
	}
	var buf [28]byte
	if !bytes.Equal(bytes.TrimSpace(accept), AcceptKey(buf[:0], key)) {
		return errors.New("websocket: handshake: Sec-WebSocket-Accept does not match the key sent")
	}
	return nil
}

// HasToken reports whether the comma-separated header value holds token,
// compared without regard to ASCII case (as Connection: keep-alive, Upgrade
// and Upgrade: websocket need).
func HasToken(value []byte, token string) bool {
	for len(value) > 0 {
		var part []byte
		part, value, _ = bytes.Cut(value, []byte{','})
		if bytes.EqualFold(bytes.TrimSpace(part), []byte(token)) {
			return true
		}
	}
	return false
}
