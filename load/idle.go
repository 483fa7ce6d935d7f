package load

// idleQueue is a schedule's queue of connections that could take another
// request and wait for one to come due, oldest first: a ring with room
// for every connection the schedule may have, so it never grows.
type idleQueue struct {
	ring []*conn
	head int
	n    int
}

// newIdleQueue returns a queue with room for size connections.
func newIdleQueue(size int) idleQueue { return idleQueue{ring: make([]*conn, size)} }

// park queues c as idle, once.
func (q *idleQueue) park(c *conn) {
	if c.idle {
		return
	}
	c.idle = true
	q.ring[(q.head+q.n)%len(q.ring)] = c
	q.n++
}

// pop takes the connection idle the longest; the queue must not be empty.
func (q *idleQueue) pop() *conn {
	c := q.ring[q.head]
	q.ring[q.head] = nil
	q.head = (q.head + 1) % len(q.ring)
	q.n--
	c.idle = false
	return c
}

// len returns how many connections wait.
func (q *idleQueue) len() int { return q.n }
