package load

// ring is a fixed-size first-in first-out queue, oldest first: the
// exchanges in flight on an HTTP/1.1 or WebSocket connection (answered in
// the order they were sent), the connections idle in a schedule. Its room
// is set when it is made, so it never grows; push on a full ring is the
// caller's error.
type ring[T any] struct {
	buf   []T
	first int // buf[first] is the oldest
	n     int
}

// newRing returns an empty ring with room for size items.
func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

// push adds v as the newest item.
func (r *ring[T]) push(v T) {
	i := r.first + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = v
	r.n++
}

// pop removes the oldest item and returns it; the ring must not be empty.
func (r *ring[T]) pop() T {
	v := r.buf[r.first]
	var zero T
	r.buf[r.first] = zero // keep no pointer to what left
	r.first++
	if r.first == len(r.buf) {
		r.first = 0
	}
	r.n--
	return v
}

// at returns the i-th oldest item, from 0.
func (r *ring[T]) at(i int) T {
	i += r.first
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	return r.buf[i]
}

// len returns how many items the ring holds.
func (r *ring[T]) len() int { return r.n }

// room returns how many more items fit.
func (r *ring[T]) room() int { return len(r.buf) - r.n }

// reset empties the ring.
func (r *ring[T]) reset() {
	clear(r.buf)
	r.first, r.n = 0, 0
}
