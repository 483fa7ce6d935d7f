package mailbox

import (
	"sync"
	"sync/atomic"
)

// Box is a queue of T that any goroutine posts to and one owner (a loop)
// takes from. The zero Box is empty and open, and wakes no one; Init sets
// the function that wakes its owner.
//
// Post and Close may be called from any goroutine; Take, Next and Pending
// only from the owner's, one at a time.
type Box[T any] struct {
	mu     sync.Mutex
	posted []T  // under mu
	closed bool // under mu
	wake   func()
	// any is set when posted is not empty, so that an owner with nothing
	// posted takes no lock.
	any atomic.Bool

	// The owner's: the batch being handed out, batch[next:] still to go.
	batch []T
	next  int
}

// Init sets the function Post calls, with the box's lock held, after
// queueing an item: it wakes the owner (a poller's Wake). Because it runs
// under the lock, a wake never follows a Close that returned, so the
// owner may free what wake touches once Close has returned. Init must be
// called before the box is shared.
func (b *Box[T]) Init(wake func()) { b.wake = wake }

// Post queues v for the owner and wakes it. It reports false, queueing
// nothing, if the box was closed.
func (b *Box[T]) Post(v T) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.posted = append(b.posted, v)
	b.any.Store(true)
	if b.wake != nil {
		b.wake()
	}
	b.mu.Unlock()
	return true
}

// Take starts handing out a new batch, what was posted until now, unless
// the last batch is not all handed out yet: then the hand-out resumes
// where it stopped. The slices are swapped, never allocated once both
// have grown to the box's working size.
func (b *Box[T]) Take() {
	if b.next < len(b.batch) || !b.any.Load() {
		return
	}
	b.mu.Lock()
	b.batch, b.posted = b.posted, b.batch[:0]
	b.any.Store(false)
	b.mu.Unlock()
	b.next = 0
}

// Next hands out the next item of the batch Take started, and false when
// the batch is all handed out. The item is counted as handed out before
// it is returned, and its place is cleared so that the box keeps no
// pointer to it.
func (b *Box[T]) Next() (v T, ok bool) {
	if b.next >= len(b.batch) {
		return v, false
	}
	v = b.batch[b.next]
	var zero T
	b.batch[b.next] = zero
	b.next++
	return v, true
}

// Pending reports whether items wait: posted and not taken, or taken and
// not handed out.
func (b *Box[T]) Pending() bool {
	return b.next < len(b.batch) || b.any.Load()
}

// Close closes the box: later Posts fail. It returns the items posted and
// not yet handed out (the rest of a batch first), for the owner to
// dispose of; the box is empty afterwards.
func (b *Box[T]) Close() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	left := append(b.batch[b.next:len(b.batch):len(b.batch)], b.posted...)
	b.batch, b.next, b.posted = nil, 0, nil
	b.any.Store(false)
	return left
}

// Closed reports whether Close has been called.
func (b *Box[T]) Closed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}
