package load

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gust-http/gust/result"
)

// muxSession stands in for a multiplexed protocol such as HTTP/2: each
// request gets the next stream id, and the peer answers in any order with
// lines "<id> <status>", "rst <id>" (one stream reset) or "ping" (to be
// answered with "pong" by the session itself).
type muxSession struct {
	streams map[int]exchange
	next    int
	depth   int
}

func (s *muxSession) start(out []byte) []byte { return append(out, "PREFACE\n"...) }
func (s *muxSession) room() int               { return s.depth - len(s.streams) }
func (s *muxSession) inflight() int           { return len(s.streams) }
func (s *muxSession) closing() bool           { return false }
func (s *muxSession) stalled() bool           { return false }
func (s *muxSession) multiplexed() bool       { return true }
func (s *muxSession) expire(int64, sink)      {}
func (s *muxSession) eof(k sink)              {}
func (s *muxSession) reset()                  { clear(s.streams) }

func (s *muxSession) at(i int) exchange {
	ids := make([]int, 0, len(s.streams))
	for id := range s.streams {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return s.streams[ids[i]]
}

func (s *muxSession) send(out []byte, req *request, x exchange) []byte {
	s.streams[s.next] = x
	out = fmt.Appendf(out, "HEADERS %d %s %s\n", s.next, req.head.Method, req.head.Target)
	s.next++
	return out
}

func (s *muxSession) feed(data []byte, k sink) (result.ErrorKind, bool) {
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "ping":
			k.reply([]byte("pong\n"))
		case len(f) == 2 && f[0] == "rst":
			id, _ := strconv.Atoi(f[1])
			x, ok := s.streams[id]
			if !ok {
				return result.ErrProtocol, false
			}
			delete(s.streams, id)
			k.abandon(x, result.ErrReset)
		case len(f) == 2:
			id, _ := strconv.Atoi(f[0])
			status, _ := strconv.Atoi(f[1])
			x, ok := s.streams[id]
			if !ok {
				return result.ErrProtocol, false
			}
			delete(s.streams, id)
			k.complete(x, status)
		default:
			return result.ErrProtocol, false
		}
	}
	return 0, true
}

// TestSessionSeamCarriesAMultiplexedProtocol drives the loop's side of the
// protocol seam with a session whose responses come back out of order:
// each completion is charged from its own send time, a stream reset fails
// one request while the connection goes on, and the session's own replies
// are queued for writing.
func TestSessionSeamCarriesAMultiplexedProtocol(t *testing.T) {
	l, _ := feedLoop(t)
	c := newConn(&muxSession{streams: map[int]exchange{}, depth: 4})
	c.state = stActive
	c.wbuf = c.ses.start(c.wbuf[:0])
	for i, sent := range []int64{1_000_000, 2_000_000, 3_000_000} {
		l.send(c, &request{head: RequestHead{Method: []byte("GET"), Target: []byte("/" + strconv.Itoa(i))}}, sent, 0, sent)
	}
	if want := "PREFACE\nHEADERS 0 GET /0\nHEADERS 1 GET /1\nHEADERS 2 GET /2\n"; string(c.wbuf) != want {
		t.Fatalf("write buffer %q, want %q", c.wbuf, want)
	}
	c.woff, c.wleft = len(c.wbuf), 0 // as if written
	if c.ses.room() != 1 || l.inflight != 3 {
		t.Fatalf("room %d, loop in flight %d; want 1 and 3", c.ses.room(), l.inflight)
	}

	steps := []struct {
		name      string
		in        string
		requests  int64
		inflight  int
		minUs     int64
		maxUs     int64
		resets    int64
		pending   string
		status503 int64
	}{
		{"the last request's response first is charged from its own send time", "2 200\n", 1, 2, 7000, 7000, 0, "", 0},
		{"then the first request's, with its own status", "0 503\n", 2, 1, 7000, 9000, 0, "", 1},
		{"a ping is answered by the session, through the loop's write buffer", "ping\n", 2, 1, 7000, 9000, 0, "pong\n", 1},
		{"a stream reset fails one request and keeps the connection", "rst 1\n", 2, 0, 7000, 9000, 1, "pong\n", 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if !l.feed(c, []byte(st.in), 10_000_000) {
				t.Fatal("the connection was failed")
			}
			s := l.stats
			if s.requests != st.requests || c.inflight() != st.inflight || l.inflight != st.inflight {
				t.Errorf("requests %d, in flight %d (loop %d); want %d and %d", s.requests, c.inflight(), l.inflight, st.requests, st.inflight)
			}
			h := s.latency
			if !h.ValuesAreEquivalent(h.Min(), st.minUs) || !h.ValuesAreEquivalent(h.Max(), st.maxUs) {
				t.Errorf("latency from %d to %d us, want %d to %d", h.Min(), h.Max(), st.minUs, st.maxUs)
			}
			if s.errors[result.ErrReset] != st.resets || s.status[503] != st.status503 {
				t.Errorf("resets %d, 503s %d; want %d and %d", s.errors[result.ErrReset], s.status[503], st.resets, st.status503)
			}
			if got := string(c.wbuf[c.woff : c.woff+c.wleft]); got != st.pending {
				t.Errorf("left to write %q, want %q", got, st.pending)
			}
		})
	}
}
