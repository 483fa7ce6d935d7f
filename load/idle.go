package load

// idleQueue is a schedule's queue of connections that could take another
// request and wait for one to come due, oldest first, with room for
// every connection the schedule may have.
type idleQueue struct{ ring[*conn] }

// newIdleQueue returns a queue with room for size connections.
func newIdleQueue(size int) idleQueue { return idleQueue{newRing[*conn](size)} }

// park queues c as idle, once.
func (q *idleQueue) park(c *conn) {
	if !c.idle {
		c.idle = true
		q.push(c)
	}
}

// take takes the connection idle the longest; the queue must not be
// empty.
func (q *idleQueue) take() *conn {
	c := q.pop()
	c.idle = false
	return c
}
