package load

import (
	"bytes"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/websocket"
)

// The client's side of the opening handshake's answer (RFC 6455 section
// 4.1): a 101 with Upgrade: websocket, Connection: upgrade and the
// Sec-WebSocket-Accept of the key sent, and for an offer of
// permessage-deflate, the server's Sec-WebSocket-Extensions, if any,
// checked against it. Anything else is a failed upgrade, counted with its
// status (101 for a 101 with wrong headers, 0 for an answer that is not
// HTTP).

// wsOffer is what newWSRun offers for Deflate.
var wsOffer = websocket.DeflateParams{ServerNoContextTakeover: true, ClientNoContextTakeover: true}

// upgrade reads the answer at the start of in. It returns the length of
// its head once the connection is upgraded (phase wsOpen), 0 while the
// head is not all in, and false for a failed upgrade, counted.
func (s *wsSession) upgrade(in []byte) (int, bool) {
	n, err := http1.ParseResponseHead(in, maxResponseHead, &s.head)
	if err == http1.ErrIncomplete {
		return 0, true
	}
	if err != nil {
		s.st.refused(0)
		return 0, false
	}
	if s.head.StatusCode != 101 {
		s.st.refused(s.head.StatusCode)
		return 0, false
	}
	var upgrade, connection, accept, ext []byte
	extensions := 0
	forFields(in[:n], func(name, value []byte) {
		switch {
		case http1.EqualFold(name, "Upgrade"):
			upgrade = value
		case http1.EqualFold(name, "Connection"):
			connection = value
		case http1.EqualFold(name, "Sec-WebSocket-Accept"):
			accept = value
		case http1.EqualFold(name, "Sec-WebSocket-Extensions"):
			ext = value
			extensions++
		}
	})
	if websocket.CheckServerResponse(101, upgrade, connection, accept, s.key[:]) != nil || extensions > 1 {
		s.st.refused(101)
		return 0, false
	}
	var params *websocket.DeflateParams
	if extensions > 0 {
		p, err := websocket.ParseDeflateResponse(ext)
		if s.run.offer == nil || err != nil || !wsOffer.Accepts(p) {
			s.st.refused(101) // an extension not offered, or not as offered
			return 0, false
		}
		// This side compresses every message afresh whatever the server
		// allows: so the run's message compressed once is every message's.
		p.ClientNoContextTakeover = true
		params = &p
		s.deflated = p.ClientMaxWindowBits == 0 || p.ClientMaxWindowBits == 15
	}
	s.eng.Init(websocket.Config{Client: true, Deflate: params})
	s.phase = wsOpen
	s.st.upgraded(usec(s.run.clock()-s.started), params != nil)
	return n, true
}

// forFields calls fn with every header field of a response head (status
// line and fields, up to the blank line), its value trimmed of spaces and
// tabs. The head was parsed already, so every line is well formed.
func forFields(head []byte, fn func(name, value []byte)) {
	_, head, _ = bytes.Cut(head, []byte{'\n'}) // the status line
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue // the blank line
		}
		fn(name, bytes.Trim(value, " \t"))
	}
}
