//go:build linux

package server

// protocol is what a connection speaks: HTTP/1.1 from its first byte
// (h1proto), HTTP/2 once its preface (h2c) or TLS's ALPN says so (h2conn),
// WebSocket after an upgrade. The loop owns the socket, the read turn
// (connturn_linux.go), the timers and the close; a protocol turns the
// bytes read into work and output. The loop calls these methods only
// while it owns c (c.state is stIdle) and c is not lingering.
type protocol interface {
	// serve takes data: the connection's unserved input, what was just
	// read appended to what c.in held. drained says the read emptied the
	// socket. It returns false when the loop no longer owns an open
	// connection (closed, or handed to a worker). A protocol that
	// switches c to another (c.proto) has given that one the input.
	serve(c *conn, data []byte, drained bool, now int64) bool
	// reading reports whether the loop should read c now: false while
	// output the client does not take is backed up past what the protocol
	// allows, or the protocol is closing.
	reading(c *conn) bool
	// writable says the socket takes output again (c.blocked was set); it
	// returns false if c was closed.
	writable(c *conn, now int64) bool
	// endTurn finishes the loop's turn on c after its reads: output
	// written, the deadline set for what c waits for now.
	endTurn(c *conn, now int64)
	// due is the wheel's callback: close c, or say when to look again (0
	// once closed).
	due(c *conn, now int64) int64
	// shutdown is Shutdown's step for an idle connection: took is true if
	// the protocol took care of it (HTTP/2's GOAWAY), false to have the
	// loop serve what has arrived and close c once idle. With begin false
	// it only goes on with a wind-down begun at an earlier step. began is
	// true when the wind-down begins now (the GOAWAY sent), so that the
	// loop counts it against the step's share (drain_linux.go).
	shutdown(c *conn, begin bool) (took, began bool)
	// posted applies what other goroutines queued for c with loop.post.
	// It is called even after c has closed, so that the protocol can free
	// and fail what was posted.
	posted(c *conn, now int64)
	// release frees the protocol's state when c closes; it may be called
	// more than once.
	release(c *conn)
}

// post queues c for its protocol's posted, from any goroutine, and wakes
// the loop. The protocol keeps what was posted and makes sure a
// connection is queued once per batch.
func (l *loop) post(c *conn) {
	l.posts.Post(c) // false once the loop has stopped: nothing more is taken
}

// takePosts hands the connections queued with post to their protocols.
func (l *loop) takePosts(now int64) {
	l.posts.Take() // resumes a batch a goroutine moved off the loop left
	for c, ok := l.posts.Next(); ok; c, ok = l.posts.Next() {
		c.proto.posted(c, now) // may move a callback off the loop
	}
}
