package quic

import "time"

// idleReleaseAfter is how long a connection hears nothing before it lets
// go of what only a busy connection needs (releaseIdle): long enough that
// a connection in use never pays for making it all again.
const idleReleaseAfter = time.Second

// releaseAfter returns when a connection that last heard from its peer at
// now releases its working state: idleReleaseAfter later, or three probe
// timeouts if longer, past when a late packet of the previous key phase
// may still arrive.
func (c *Conn) releaseAfter(now time.Time) time.Time {
	return now.Add(max(idleReleaseAfter, 3*c.loss.pto(c.peerMaxAckDelay())))
}

// releaseIdle lets go of what a quiet connection can make again when its
// next packet comes or goes: the 1-RTT cipher objects (their key bytes
// stay, so key updates go on), the read keys of the previous key phase.
func (c *Conn) releaseIdle() {
	sp := &c.spaces[spaceApp]
	sp.read.release()
	sp.write.release()
	c.keys.next.release()
	c.keys.prev = nil
}
