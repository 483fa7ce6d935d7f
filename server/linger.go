package server

import "time"

// A lingering close (RFC 9112 section 9.6): when the server closes a
// connection whose client may still be sending (a body the handler did not
// read, a request after one that said Connection: close, a malformed
// request), closing the socket at once would make the kernel answer the
// unread bytes with a reset, and the client could lose the response it has
// not read yet. Instead the server shuts down its write side (the client
// sees the end of the response stream), reads and discards what still comes
// for a while, and closes once the client has closed its side, or at a
// bound (linger_linux.go; the portable fallback closes at once).
const (
	// lingerTime bounds how long a lingering connection stays open.
	lingerTime = 3 * time.Second
	// lingerBytes bounds what one lingering connection may make its loop
	// read and discard, the work an endless upload can cost: enough for an
	// upload of a few megabytes that a handler refused to finish arriving.
	lingerBytes = 4 << 20
)
