package http3

import "errors"

// ErrGoAway is returned by Client.OpenRequest for a stream the server's
// GOAWAY said it will not process: the request may be retried on a new
// connection.
var ErrGoAway = errors.New("http3: the server is going away: request not sent")

// Client is the client side of an HTTP/3 connection's streams, sans-I/O
// (RFC 9114): it knows nothing of QUIC but stream IDs and bytes. The
// caller opens a unidirectional stream and writes Start's bytes to it
// (this client's control stream), hands every byte that arrives on a
// unidirectional stream the server opened to ReceiveUni, and runs each
// request on a RequestStream readied by OpenRequest. Errors are ConnErrors
// (close the connection with CodeOf(err)) or StreamErrors (reset that
// stream). It sends no MAX_PUSH_ID, so a server may not push, and uses
// no dynamic QPACK table.
type Client struct {
	// Settings are this client's SETTINGS; the zero value sends
	// DefaultSettings.
	Settings Settings

	uni uniStreams
}

// Start appends the bytes of this client's control stream: its type and
// SETTINGS (see AppendControlStreamStart).
func (c *Client) Start(b []byte) []byte {
	s := c.Settings
	if s == (Settings{}) {
		s = DefaultSettings()
	}
	return AppendControlStreamStart(b, s)
}

// PeerSettings returns the server's settings, and false until they have
// arrived.
func (c *Client) PeerSettings() (Settings, bool) { return c.uni.control.Settings() }

// GoAway returns the stream ID of the server's last GOAWAY, ok false
// before any.
func (c *Client) GoAway() (id uint64, ok bool) { return c.uni.control.GoAway() }

// OpenRequest readies s for a request on stream id, a client-initiated
// bidirectional stream; head says its method is HEAD. It returns
// ErrGoAway for a stream at or above the server's GOAWAY.
func (c *Client) OpenRequest(s *RequestStream, id uint64, head bool) error {
	if id%4 != 0 {
		return errors.New("http3: a request needs a client-initiated bidirectional stream")
	}
	if g, ok := c.uni.control.GoAway(); ok && id >= g {
		return ErrGoAway
	}
	s.Reset(id, head)
	return nil
}

// ReceiveUni consumes bytes that arrived on unidirectional stream id,
// which the server opened; fin is true when they end it (or it was reset).
// The stream type comes first (RFC 9114 section 6.2): the control stream
// goes to its reader; a push stream is an H3_ID_ERROR (no push allowed);
// a second control, QPACK encoder or decoder stream is an
// H3_STREAM_CREATION_ERROR; a critical stream ending is
// H3_CLOSED_CRITICAL_STREAM. The QPACK encoder stream may only set the
// dynamic table's capacity to 0 (QPACK_ENCODER_STREAM_ERROR otherwise);
// the decoder stream is read and discarded, as this client's encoder
// never uses the dynamic table. Streams of other types are discarded:
// ignore is true, and the caller may stop reading them with
// H3_STREAM_CREATION_ERROR.
func (c *Client) ReceiveUni(id uint64, p []byte, fin bool) (ignore bool, err error) {
	return c.uni.receive(id, p, fin)
}
