package flow

import (
	"math/rand/v2"
	"strconv"
	"unsafe"
)

// Status is what a user does next (Next).
type Status uint8

const (
	// Send: a request is due (User.Request builds it).
	Send Status = iota
	// Wait: the user thinks until the time Next returned.
	Wait
	// Ended: the iteration is over; Begin starts the next.
	Ended
)

// User is one virtual user's state: where it is in the flow, its
// variables (a fixed slice by variable number, no map) and its cookies.
// Its requests are built in a Builder its loop shares among its users,
// so that a user waiting or thinking holds no request bytes. It is
// driven by one loop, on whichever connection carries its request;
// nothing in it is shared.
type User struct {
	f        *Flow
	vu       int
	users    int
	iter     int // iterations begun, the current one included
	vals     [][]byte
	counters []int32
	prog     []op
	pc       int
	inOnce   bool
	onceDone bool
	active   bool
	aborted  bool
	step     int   // the step sent, waiting for Done; -1 when none
	wake     int64 // thinking until then
	start    int64 // the iteration's start
	rng      *rand.Rand
	jar      []cookie
	// A step's redirects (redirect.go): hops followed so far, the step
	// whose next hop is due (+1; 0: none), whether the hops are GETs,
	// and where the next goes. path is the last request's path, for a
	// cookie's default path and a relative Location.
	hops uint8
	get  bool
	due  int32
	loc  []byte
	path []byte
}

// Request is a step's request as built for one user; its slices view
// the user's buffers until its next request.
type Request struct {
	Step   int // the step's number: its endpoint
	Method string
	Target []byte
	Header [][2]string
	Body   []byte
}

// NewUser returns user vu (numbered from 1) of users, its random choices
// seeded with seed.
func (f *Flow) NewUser(vu, users int, seed uint64) *User {
	u := &User{f: f, vu: vu, users: max(users, 1), step: -1,
		vals:     make([][]byte, len(f.vars)),
		counters: make([]int32, f.slots),
		rng:      rand.New(rand.NewPCG(seed, uint64(vu))),
	}
	u.vals[varVU] = strconv.AppendInt(nil, int64(vu), 10)
	return u
}

// Begin starts an iteration at start (its intended start in the open
// model), after the once steps the first time.
func (u *User) Begin(start int64) {
	f := u.f
	u.active, u.aborted = true, false
	u.start, u.wake, u.pc, u.step = start, 0, 0, -1
	u.hops, u.get, u.due = 0, false, 0
	u.vals[varIter] = strconv.AppendInt(u.vals[varIter][:0], int64(u.iter), 10)
	if f.ncols > 0 && (u.iter == 0 || f.perIter) {
		row := f.rows[(u.vu-1+u.iter*u.users)%len(f.rows)]
		for i := 0; i < f.ncols; i++ {
			u.vals[firstColumn+i] = append(u.vals[firstColumn+i][:0], row[i]...)
		}
	}
	u.iter++
	u.prog, u.inOnce = f.main, false
	if !u.onceDone && len(f.once) > 0 {
		u.prog, u.inOnce = f.once, true
	}
}

// Active reports whether u is within an iteration.
func (u *User) Active() bool { return u.active }

// Waiting reports whether u sent a request and waits for its Done.
func (u *User) Waiting() bool { return u.step >= 0 }

// Next moves u on at now: to its next request (Send), a pause (Wait,
// until the time returned), or the end of its iteration (Ended, counted
// in st, which may be nil while nothing is measured).
func (u *User) Next(now int64, st *Stats) (Status, int64) {
	if !u.active {
		return Ended, 0
	}
	if u.wake > now {
		return Wait, u.wake
	}
	if u.due > 0 { // a redirect to follow, at once
		u.step, u.due = int(u.due-1), 0
		u.expire(now)
		return Send, 0
	}
	for {
		if u.pc >= len(u.prog) {
			if u.inOnce {
				u.inOnce, u.onceDone = false, true
				u.prog, u.pc, u.aborted = u.f.main, 0, false
				u.start = max(u.start, now) // the once steps are not the iteration's
				continue
			}
			u.active = false
			st.iteration(now-u.start, u.aborted)
			return Ended, 0
		}
		o := &u.prog[u.pc]
		switch o.kind {
		case opStep:
			u.pc++
			u.step = o.arg
			u.expire(now)
			return Send, 0
		case opChoose:
			x := u.rng.IntN(o.cum[len(o.cum)-1])
			i := 0
			for o.cum[i] <= x {
				i++
			}
			u.pc = o.to[i]
		case opJump:
			u.pc = o.arg
		case opRepeat:
			u.counters[o.arg] = int32(o.n)
			u.pc++
		case opLoop:
			u.counters[o.arg]--
			if u.counters[o.arg] > 0 {
				u.pc = o.n
			} else {
				u.pc++
			}
		}
	}
}

// End ends, at now, an iteration that a failed request aborted (Done
// with Status 0), counting it in st, and reports whether it ended one. A
// user whose once steps failed runs them again at its next Begin.
func (u *User) End(now int64, st *Stats) bool {
	if !u.active || !u.aborted || u.step >= 0 {
		return false
	}
	u.active = false
	st.iteration(now-u.start, true)
	return true
}

func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Done gives u the response to the request it sent, at now: Set-Cookie
// fills its jar, a redirect is followed (its next request, due at once,
// is the same step's), captures set its variables, checks are counted in
// st (nil while nothing is measured), and the step's think time starts.
// A failed request (Status 0) fails the step's checks and ends the
// iteration, as does a failed check of a step with abort.
func (u *User) Done(r *Response, now int64, st *Stats) {
	if u.step < 0 {
		return
	}
	step := u.step
	s := &u.f.steps[step]
	if r.Status != 0 {
		st.answered(step, r.Status)
	}
	u.step = -1
	if r.Status == 0 {
		for i := range s.checks {
			st.check(s.checks[i].id, false)
		}
		u.aborted, u.pc = true, len(u.prog)
		u.hops, u.get = 0, false
		return
	}
	if u.f.cookies {
		r.fields(func(n, v []byte) bool {
			if asciiEqualFold(n, "Set-Cookie") {
				u.setCookie(v, u.path, now)
			}
			return true
		})
	}
	if u.redirect(s, r) {
		u.due = int32(step) + 1
		return
	}
	u.hops, u.get = 0, false
	for i := range s.captures {
		c := &s.captures[i]
		u.vals[c.v] = c.apply(u.vals[c.v], r)
	}
	failed := false
	for i := range s.checks {
		ok := s.checks[i].pass(r)
		st.check(s.checks[i].id, ok)
		failed = failed || !ok
	}
	if failed && s.abort {
		u.aborted, u.pc = true, len(u.prog)
		return
	}
	u.wake = now + min(s.think.draw(u.rng), maxThink)
}

// Value returns the current value of variable name, for tests and
// debugging; nil when the flow has no such variable.
func (u *User) Value(name string) []byte {
	if i := u.f.varIndex(name); i >= 0 {
		return u.vals[i]
	}
	return nil
}

// VU returns u's number, from 1.
func (u *User) VU() int { return u.vu }
