package http2

// connCore is what both ends of a connection keep alike: the frame reader,
// HPACK both ways, the peer's settings, the connection's flow-control
// windows and the stream table. ClientConn and ServerConn embed it.
type connCore struct {
	reader Reader
	dec    *HeaderDecoder // set by the engine: it emits into the engine's own fields
	enc    *HeaderEncoder
	peer   Settings

	sendConn SendWindow
	recvConn RecvWindow

	streams streamTable
}

// newConnCore returns the state of a new connection: frames up to
// maxFrameSize accepted, a receive window of connWindow, room for
// maxStreams streams, the peer's settings at their defaults until its
// SETTINGS arrive.
func newConnCore(maxFrameSize, connWindow uint32, maxStreams int) connCore {
	return connCore{
		reader:   Reader{MaxFrameSize: maxFrameSize},
		enc:      NewHeaderEncoder(),
		peer:     DefaultSettings(),
		sendConn: NewSendWindow(DefaultInitialWindowSize),
		recvConn: NewRecvWindow(connWindow),
		streams:  newStreamTable(maxStreams),
	}
}
