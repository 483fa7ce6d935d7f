package load

import "github.com/gust-http/gust/load/flow"

// A loop's virtual users, apart from its connections: each user is a
// flowUser in one slice, its flow state (variables, cookies, place in the
// flow, iteration start) a flow.User of a few hundred bytes. A user holds
// a connection only from sending a step to its answer. Thinking, it
// waits in userTimers; its think over, it takes an idle connection
// (flowSchedule.idle) or waits in the queue of users (flowSchedule.queue)
// for the next connection an answer frees.

// flowUser is one virtual user of a loop.
type flowUser struct {
	u    *flow.User
	sent int64 // when its request went out
	id   int32 // its index in the loop's users
	// pending: a request is due and not yet sent (the user waits in the
	// queue, or holds a connection that sends it next).
	pending bool
	// inIter: within an iteration; free: in the free list (the open
	// model's, or resting under stages); warm: the iteration began
	// during the warmup and counts nothing.
	inIter, free, warm bool
}

// newFlowUsers returns the users of a loop: every loops-th of the
// shard's run.Users, from the loop-th, numbered after the earlier
// shards' (run.firstVU), as connections are spread over loops.
func newFlowUsers(run *FlowRun, loop, loops int) []flowUser {
	users := make([]flowUser, 0, max(0, (run.Users-loop+loops-1)/loops))
	for j := loop; j < run.Users; j += loops {
		vu := run.firstVU + j + 1
		u := run.Flow.NewUser(vu, run.users, uint64(j)*0x9e3779b97f4a7c15+1)
		users = append(users, flowUser{u: u, id: int32(len(users))})
	}
	return users
}

// userTimers is a binary min-heap of users: those thinking, keyed on
// when each wakes (and, with stages, those resting, keyed on their
// number). O(log n) a push or a wake, whatever the think times (a timing
// wheel would need a tick and a horizon; exponential thinks have
// neither). Entries are values, the user's index beside its key, so that
// sifting compares keys without visiting users, and a user keeps no heap
// position: it is never taken out before its turn.
type userTimers []userTimer

type userTimer struct {
	at int64
	u  int32
}

// push adds user u, keyed on at.
func (h *userTimers) push(at int64, u int32) {
	*h = append(*h, userTimer{at, u})
	t := *h
	for i := len(t) - 1; i > 0; {
		p := (i - 1) / 2
		if t[p].at <= t[i].at {
			break
		}
		t[p], t[i] = t[i], t[p]
		i = p
	}
}

// peek returns the lowest key; false when the heap is empty.
func (h userTimers) peek() (int64, bool) {
	if len(h) == 0 {
		return 0, false
	}
	return h[0].at, true
}

// pop removes the user of the lowest key and returns its index; the
// heap must not be empty.
func (h *userTimers) pop() int32 {
	t := *h
	u := t[0].u
	last := len(t) - 1
	t[0] = t[last]
	t = t[:last]
	*h = t
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(t) && t[l].at < t[m].at {
			m = l
		}
		if r < len(t) && t[r].at < t[m].at {
			m = r
		}
		if m == i {
			break
		}
		t[i], t[m] = t[m], t[i]
		i = m
	}
	return u
}

// flowResp is the answer an HTTP/1.1 session keeps for the user its
// connection carries: the head as received and the body up to a limit.
// It belongs to the connection: a user reads it when its answer is in.
type flowResp struct {
	head   []byte
	body   []byte
	limit  int // of the body kept for the step in flight
	status int
	done   bool
	at     int64        // when it completed
	clock  func() int64 // the run's clock
}

// onHead keeps a final response's head, forgetting the last answer.
func (r *flowResp) onHead(h []byte, status int) {
	r.head = append(r.head[:0], h...)
	r.body = r.body[:0]
	r.status, r.done = status, false
}

// onBody keeps the body's next bytes, up to the limit (0 while the step
// reads no body, so that a connection holds only the bodies read).
func (r *flowResp) onBody(p []byte) {
	if room := r.limit - len(r.body); room > 0 {
		r.body = append(r.body, p[:min(len(p), room)]...)
	}
}

// onDone marks the response complete.
func (r *flowResp) onDone() { r.done, r.at = true, r.clock() }

// respOf returns the answer c's session keeps for its user.
func respOf(c *conn) *flowResp {
	if h1, ok := c.ses.(*h1session); ok && h1.keep != nil {
		return h1.keep
	}
	return &flowResp{} // no HTTP/1.1 session: nothing was kept
}
